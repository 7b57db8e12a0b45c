import { commonConfigSpec, loadConfig, mongoConfigSpec, num, str } from '@crs/runtime';
import { parseRetentionPolicy, privacyConfigSpec, retentionConfigSpec } from '@crs/privacy';

export const evaluationConfigSpec = {
  ...commonConfigSpec,
  ...mongoConfigSpec,
  ...privacyConfigSpec,
  ...retentionConfigSpec,
  HEALTH_PORT: num({ default: 9104 }),
  CONSUMER_GROUP: str({ default: 'evaluation' }),
  TRANSACTIONAL_ID_PREFIX: str({ default: 'evaluation' }),
  NO_MATRIX_LEVEL: str({
    default: '',
    choices: ['', 'NONE', 'LOW', 'MEDIUM', 'HIGH', 'EXTREME'],
    desc: 'level recorded when no matrix serves the customer; empty records nothing (metric + log only)',
  }),
  REEVALUATION_CHUNK_SIZE: num({
    default: 500,
    desc: 'customers read and re-evaluation commands published per chunk',
  }),
  REEVALUATION_CHUNK_PAUSE_MS: num({
    default: 200,
    desc: 'pause between chunks of a re-evaluation job or a retention run, so imports interleave with them',
  }),
  REEVALUATION_LEASE_MS: num({
    default: 60000,
    desc: 'how long one instance owns a re-evaluation job or the retention run without progress',
  }),
  OVERRIDE_EXPIRY_SCAN_MS: num({
    default: 60000,
    desc: 'period of the scan for expired overrides; 0 disables it',
  }),
  PRIVACY_RETENTION_SCAN_MS: num({
    default: 24 * 60 * 60 * 1000,
    desc: 'how often the retention job starts a run (erasure of customers past their retention period); 0 disables it',
  }),
  PRIVACY_RETENTION_MAX_PER_RUN: num({
    default: 10000,
    desc: 'erasures one retention run asks for at most; the next run resumes after the last customer it handled',
  }),
  PRIVACY_RETENTION_CHUNK: num({
    default: 500,
    desc: 'customers the retention job reads per chunk',
  }),
  KAFKA_ACK_TIMEOUT_MS: num({ default: 10000 }),
};

export type EvaluationConfig = ReturnType<typeof loadEvaluationConfig>;

export function loadEvaluationConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(evaluationConfigSpec, env);
  for (const name of ['PRIVACY_RETENTION_MAX_PER_RUN', 'PRIVACY_RETENTION_CHUNK'] as const) {
    if (!Number.isInteger(config[name]) || config[name] < 1)
      throw new Error(`invalid configuration: ${name} must be a positive integer`);
  }
  return {
    ...config,
    retention: parseRetentionPolicy(config.PRIVACY_RETENTION_YEARS, config.PRIVACY_RETENTION_BY_BU),
  };
}
