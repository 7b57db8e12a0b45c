import { commonConfigSpec, loadConfig, num, str } from '@crs/runtime';

export const customerConfigSpec = {
  ...commonConfigSpec,
  HEALTH_PORT: num({ default: 9101 }),
  CONSUMER_GROUP: str({ default: 'customer-decider' }),
  TRANSACTIONAL_ID_PREFIX: str({ default: 'customer-decider' }),
};

export type CustomerConfig = ReturnType<typeof loadCustomerConfig>;

export function loadCustomerConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(customerConfigSpec, env);
}
