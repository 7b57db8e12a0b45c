import { bool, commonConfigSpec, loadConfig, mongoConfigSpec, num, str } from '@crs/runtime';

export const archiveConfigSpec = {
  ...commonConfigSpec,
  ...mongoConfigSpec,
  HEALTH_PORT: num({ default: 9106 }),
  CONSUMER_GROUP: str({
    default: 'operation-decider',
    desc: 'group of the decider over the ingest and command topics',
  }),
  TRANSACTIONAL_ID_PREFIX: str({ default: 'operation-decider' }),
  PROJECTION_GROUP: str({ default: 'archive-projector', desc: 'group of the operations/alerts projection' }),
  RETRO_GROUP: str({ default: 'archive-retro-monitor', desc: 'group that listens for new list snapshots' }),
  RETRO_ON_LIST_SNAPSHOT: bool({
    default: true,
    desc: 'run retrospective monitoring when a list snapshot message arrives',
  }),
  RETRO_LOOKBACK_DAYS: num({
    default: 90,
    desc: 'operations dated within this many days take part in a run',
  }),
  RETRO_CHUNK_SIZE: num({ default: 500, desc: 'operations read and screened per step of a run' }),
  RETRO_THRESHOLD: num({ default: 0, desc: 'alert threshold; 0 uses the screening default' }),
  CRS_SHARED_DATA: str({
    default: '',
    desc: 'folder holding lists/ (sdn.csv, ...); default <repo>/../shared/data',
  }),
};

export type ArchiveConfig = ReturnType<typeof loadArchiveConfig>;

export function loadArchiveConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(archiveConfigSpec, env);
}
