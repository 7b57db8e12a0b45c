import { commonConfigSpec, loadConfig, mongoConfigSpec, num, str } from '@crs/runtime';
import { privacyConfigSpec } from '@crs/privacy';

const spec = {
  ...commonConfigSpec,
  ...mongoConfigSpec,
  ...privacyConfigSpec,
  HEALTH_PORT: num({ default: 9103 }),
  CONSUMER_GROUP: str({ default: 'callback' }),
  CALLBACK_CONFIG_FILE: str({ default: '', desc: 'JSON file with the endpoints per business unit' }),
  CALLBACK_ENDPOINTS: str({ default: '', desc: 'the same JSON inline (takes precedence over the file)' }),
  CALLBACK_SIGNING_KEY_FILE: str({ desc: 'private JWK that signs every delivery' }),
  // 24 attempts with the backoff below span 1.75 to 3.5 hours (docs/callbacks.md): a receiver that is
  // down for an hour still gets every callback.
  CALLBACK_MAX_ATTEMPTS: num({ default: 24, desc: 'attempts before a delivery is dead-lettered' }),
  CALLBACK_TIMEOUT_MS: num({ default: 5000 }),
  CALLBACK_BACKOFF_BASE_MS: num({
    default: 1000,
    desc: 'delay ceiling after the first failed attempt; doubles per attempt',
  }),
  CALLBACK_BACKOFF_MAX_MS: num({ default: 15 * 60 * 1000, desc: 'cap of the delay ceiling' }),
  CALLBACK_POLL_MS: num({ default: 200 }),
  CALLBACK_CONCURRENCY: num({ default: 32, desc: 'attempts at once, over every endpoint' }),
  CALLBACK_ENDPOINT_CONCURRENCY: num({
    default: 0,
    desc: 'attempts at once to one endpoint; 0: a quarter of CALLBACK_CONCURRENCY',
  }),
  CALLBACK_BATCH_SIZE: num({
    default: 500,
    desc: 'consumed events delivered and written together (one insertMany per 500 deliveries)',
  }),
  CALLBACK_PARTITIONS_CONCURRENTLY: num({
    default: 3,
    desc: 'partitions whose batches are delivered at once',
  }),
  CALLBACK_HANDOVER_MS: num({
    default: 1000,
    desc: 'a batch waits this long for one attempt before handing it to the retry queue',
  }),
  CALLBACK_SLOW_ENDPOINT_MS: num({
    default: 10000,
    desc: 'an endpoint that needed a handover is served from the queue for this long',
  }),
  // The redelivery API on the health port verifies the same tokens as the ingress (decision 0026).
  AUTH_JWKS_URL: str({ default: '' }),
  AUTH_JWKS_FILE: str({ default: '' }),
  AUTH_ISSUER: str({ default: 'http://127.0.0.1:8080/local-issuer' }),
  AUTH_AUDIENCE: str({ default: 'crs-api' }),
};

export function loadCallbackConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(spec, env);
  if (!config.AUTH_JWKS_URL && !config.AUTH_JWKS_FILE)
    throw new Error('invalid configuration: set AUTH_JWKS_URL or AUTH_JWKS_FILE');
  return config;
}
export type CallbackConfig = ReturnType<typeof loadCallbackConfig>;
