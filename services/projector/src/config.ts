import { commonConfigSpec, loadConfig, mongoConfigSpec, num, str } from '@crs/runtime';
import { checkFetchTuning } from '@crs/messaging';

const spec = {
  ...commonConfigSpec,
  ...mongoConfigSpec,
  HEALTH_PORT: num({ default: 9102 }),
  CONSUMER_GROUP: str({ default: 'projector' }),
  PROJECTOR_FETCH_MIN_BYTES: num({
    default: 4_194_304,
    desc: "the projector's fetch.min.bytes (in place of KAFKA_FETCH_MIN_BYTES): the broker holds a fetch until this much of events is there or PROJECTOR_FETCH_MAX_WAIT_MS passed, so events arriving within the wait are written together, a customer's in one write (decisions 0060, 0079)",
  }),
  PROJECTOR_FETCH_MAX_WAIT_MS: num({
    default: 250,
    desc: "the projector's fetch.max.wait.ms (in place of KAFKA_FETCH_MAX_WAIT_MS): the read models are up to this much later, unless PROJECTOR_FETCH_MIN_BYTES of events arrive sooner",
  }),
};

/** A fetch linger value kafkajs would misread stops the service at start, naming the setting (decision 0060). */
export function loadProjectorConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(spec, env);
  const projectorFetch = checkFetchTuning(
    { minBytes: config.PROJECTOR_FETCH_MIN_BYTES, maxWaitTimeInMs: config.PROJECTOR_FETCH_MAX_WAIT_MS },
    { minBytes: 'PROJECTOR_FETCH_MIN_BYTES', maxWaitTimeInMs: 'PROJECTOR_FETCH_MAX_WAIT_MS' },
  );
  return { ...config, projectorFetch };
}
export type ProjectorConfig = ReturnType<typeof loadProjectorConfig>;
