import { commonConfigSpec, loadConfig, mongoConfigSpec, num, str } from '@crs/runtime';

const spec = {
  ...commonConfigSpec,
  ...mongoConfigSpec,
  HEALTH_PORT: num({ default: 9102 }),
  CONSUMER_GROUP: str({ default: 'projector' }),
};

export function loadProjectorConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(spec, env);
}
export type ProjectorConfig = ReturnType<typeof loadProjectorConfig>;
