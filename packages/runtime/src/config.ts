import { bool, cleanEnv, num, port, str, url, type CleanedEnv } from 'envalid';
import { ConfigInvalidError } from './errors';

export { bool, num, port, str, url };

/**
 * Declares a service's settings once (env var name, default, validator) and validates them at boot.
 * The returned object's type is derived from the declaration. Fails fast with every problem listed.
 */
export function loadConfig<S extends Record<string, unknown>>(
  spec: S,
  env: NodeJS.ProcessEnv = process.env,
): CleanedEnv<S> {
  return cleanEnv(env, spec as never, {
    reporter: ({ errors }) => {
      const problems = Object.entries(errors).map(([key, err]) => `${key}: ${(err as Error).message}`);
      if (problems.length > 0) throw new ConfigInvalidError(`invalid configuration: ${problems.join('; ')}`);
    },
  }) as CleanedEnv<S>;
}

/** Settings every service shares: Kafka, schema registry, logging, health and shutdown. */
export const commonConfigSpec = {
  SERVICE_NAME: str({ default: '' }),
  LOG_LEVEL: str({
    default: 'info',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  }),
  KAFKA_BROKERS: str({ default: '127.0.0.1:19092', desc: 'comma-separated bootstrap brokers' }),
  KAFKA_SSL: bool({ default: false }),
  KAFKA_SASL_MECHANISM: str({ default: '', choices: ['', 'plain', 'scram-sha-256', 'scram-sha-512'] }),
  KAFKA_SASL_USERNAME: str({ default: '' }),
  KAFKA_SASL_PASSWORD: str({ default: '' }),
  KAFKA_FETCH_MIN_BYTES: num({
    default: 1,
    desc: 'fetch.min.bytes of every consumer: the broker answers a fetch once this much is there, or after KAFKA_FETCH_MAX_WAIT_MS',
  }),
  KAFKA_FETCH_MAX_WAIT_MS: num({
    default: 200,
    desc: 'fetch.max.wait.ms of every consumer (docs/operations.md, "Kafka fetch tuning")',
  }),
  KAFKA_TXN_LINGER_MS: num({
    default: 0,
    desc: 'under load, a transactional processor\'s next batch of a partition waits until this long after its last one ended, so that one transaction carries more (0, the default: never; docs/operations.md, "Kafka fetch tuning")',
  }),
  KAFKA_BATCH_STALL_MS: num({
    default: 300000,
    desc: 'a consumer batch that shows no sign of life (no handler attempt, backoff or commit begun) for this long is stalled: logged (CONSUMER_BATCH_STALLED) and /health/live fails, so the instance is restarted (30000 to 3600000; docs/operations.md, "Health")',
  }),
  SCHEMA_REGISTRY_URL: url({ default: 'http://127.0.0.1:18081/apis/ccompat/v7' }),
  SCHEMA_REGISTRY_USERNAME: str({ default: '' }),
  SCHEMA_REGISTRY_PASSWORD: str({ default: '' }),
  TOPIC_PREFIX: str({ default: '', desc: 'prefix of every topic, consumer group and transactional id' }),
  TOPIC_PARTITIONS: num({ default: 6 }),
  TOPIC_REPLICATION_FACTOR: num({ default: 1 }),
  HEALTH_PORT: port({ default: 0, desc: '0 picks a free port' }),
  HEALTH_HOST: str({ default: '127.0.0.1' }),
  SHUTDOWN_TIMEOUT_MS: num({ default: 15000 }),
};

export const mongoConfigSpec = {
  MONGODB_URI: str({ default: 'mongodb://127.0.0.1:27018/' }),
  MONGODB_DB: str({ default: 'crs' }),
  MONGODB_OWNER_DATABASES: bool({
    default: true,
    desc: 'the ingress and callback service keep their own collections in <MONGODB_DB>_<owner>',
  }),
};
