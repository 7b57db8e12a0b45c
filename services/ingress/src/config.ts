import {
  ConfigInvalidError,
  bool,
  commonConfigSpec,
  loadConfig,
  mongoConfigSpec,
  num,
  port,
  str,
} from '@crs/runtime';
import { parseRetentionPolicy, privacyConfigSpec, retentionConfigSpec } from '@crs/privacy';

const spec = {
  ...commonConfigSpec,
  ...mongoConfigSpec,
  ...privacyConfigSpec,
  ...retentionConfigSpec,
  HTTP_PORT: port({ default: 8080 }),
  HTTP_HOST: str({ default: '127.0.0.1' }),
  INGRESS_WORKERS: num({
    default: 1,
    desc: 'processes that share HTTP_PORT (node:cluster), 1 to 64; more than 1 on a host with cores to spare (docs/decisions/0056); keep 1 in Kubernetes and scale replicas',
  }),
  AUTH_JWKS_URL: str({ default: '' }),
  AUTH_JWKS_FILE: str({ default: '' }),
  AUTH_ISSUER: str({ default: 'http://127.0.0.1:8080/local-issuer' }),
  AUTH_AUDIENCE: str({ default: 'crs-api' }),
  MAX_BATCH_SIZE: num({ default: 1000, desc: 'customers per batch request' }),
  MAX_BODY_BYTES: num({ default: 10 * 1024 * 1024, desc: 'largest accepted request body' }),
  KAFKA_ACK_TIMEOUT_MS: num({ default: 5000 }),
  RESERVATION_ORPHAN_AFTER_SEC: num({
    default: 900,
    desc: 'a communicationNumber reservation this old whose number is on no event is reclaimed by a retry of its customer; 0 = never',
  }),
  RETRY_AFTER_SECONDS: num({ default: 5 }),
  SEED_DEMO_CLASSIFIERS: bool({ default: true, desc: 'seed classifiers of business unit DEMO on start' }),
  CLASSIFIER_CACHE_MS: num({ default: 30000 }),
  SCREENING_API_URL: str({ default: 'http://127.0.0.1:9105', desc: 'where /api/screening/* is forwarded' }),
  CALLBACK_API_URL: str({
    default: 'http://127.0.0.1:9103',
    desc: 'the callback service HTTP API: the delivery log and redelivery (/api/callbacks/*) are forwarded there',
  }),
  AUDIT_LOG: bool({
    default: true,
    desc: 'one audit log event (log: "audit") per request that reads or changes customer data',
  }),
};

export function loadIngressConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(spec, env);
  if (!config.AUTH_JWKS_URL && !config.AUTH_JWKS_FILE) {
    throw new Error('invalid configuration: set AUTH_JWKS_URL or AUTH_JWKS_FILE');
  }
  if (
    !Number.isInteger(config.INGRESS_WORKERS) ||
    config.INGRESS_WORKERS < 1 ||
    config.INGRESS_WORKERS > 64
  ) {
    throw new ConfigInvalidError('invalid configuration: INGRESS_WORKERS must be an integer from 1 to 64');
  }
  // An orphan must be older than any attempt that may still be publishing (ack timeout, kafkajs retries).
  const orphanFloorSec = Math.max(60, Math.ceil((3 * config.KAFKA_ACK_TIMEOUT_MS) / 1000));
  if (config.RESERVATION_ORPHAN_AFTER_SEC !== 0 && config.RESERVATION_ORPHAN_AFTER_SEC < orphanFloorSec) {
    throw new Error(
      `invalid configuration: RESERVATION_ORPHAN_AFTER_SEC must be 0 (never) or at least ${orphanFloorSec} (60 s and 3 x KAFKA_ACK_TIMEOUT_MS)`,
    );
  }
  return {
    ...config,
    retention: parseRetentionPolicy(config.PRIVACY_RETENTION_YEARS, config.PRIVACY_RETENTION_BY_BU),
  };
}
export type IngressConfig = ReturnType<typeof loadIngressConfig>;
