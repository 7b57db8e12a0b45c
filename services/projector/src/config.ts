import { commonConfigSpec, loadConfig, mongoConfigSpec, num, str } from '@crs/runtime';

const spec = {
  ...commonConfigSpec,
  ...mongoConfigSpec,
  HEALTH_PORT: num({ default: 9102 }),
  CONSUMER_GROUP: str({ default: 'projector' }),
  PROJECTOR_FETCH_MIN_BYTES: num({
    default: 262_144,
    desc: 'bytes of events the broker gathers before answering a fetch (folds more of each customer into one write; decision 0034)',
  }),
  PROJECTOR_FETCH_MAX_WAIT_MS: num({
    default: 300,
    desc: 'the longest the broker holds a fetch for PROJECTOR_FETCH_MIN_BYTES (the read model lags at most this much more)',
  }),
};

export function loadProjectorConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(spec, env);
}
export type ProjectorConfig = ReturnType<typeof loadProjectorConfig>;
