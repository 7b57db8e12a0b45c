import { bool, commonConfigSpec, loadConfig, num, str } from '@crs/runtime';

export const customerConfigSpec = {
  ...commonConfigSpec,
  HEALTH_PORT: num({ default: 9101 }),
  CONSUMER_GROUP: str({ default: 'customer-decider' }),
  TRANSACTIONAL_ID_PREFIX: str({ default: 'customer-decider' }),
  STATE_SNAPSHOTS: bool({
    default: true,
    desc: 'write folded states to the compacted snapshot topic and restart from them (decision 0016)',
  }),
  SNAPSHOT_INTERVAL_MS: num({
    default: 5000,
    desc: 'least time between two decider transactions of a partition that write state snapshots; a partition without commands this long writes the snapshots left behind (decision 0081)',
  }),
  SNAPSHOT_MAX_PER_TRANSACTION: num({
    default: 2000,
    desc: 'state snapshots one decider transaction writes at most (more wait for the next ones)',
  }),
};

export type CustomerConfig = ReturnType<typeof loadCustomerConfig>;

export function loadCustomerConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(customerConfigSpec, env);
}
