import { commonConfigSpec, loadConfig, mongoConfigSpec, num, str } from '@crs/runtime';

export const evaluationConfigSpec = {
  ...commonConfigSpec,
  ...mongoConfigSpec,
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
    desc: 'pause between chunks, so imports interleave with a large re-evaluation',
  }),
  REEVALUATION_LEASE_MS: num({
    default: 60000,
    desc: 'how long one instance owns a re-evaluation job without progress',
  }),
  OVERRIDE_EXPIRY_SCAN_MS: num({
    default: 60000,
    desc: 'period of the scan for expired overrides; 0 disables it',
  }),
  KAFKA_ACK_TIMEOUT_MS: num({ default: 10000 }),
};

export type EvaluationConfig = ReturnType<typeof loadEvaluationConfig>;

export function loadEvaluationConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(evaluationConfigSpec, env);
}
