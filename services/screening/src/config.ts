import { bool, commonConfigSpec, loadConfig, mongoConfigSpec, num, str } from '@crs/runtime';
import { privacyConfigSpec } from '@crs/privacy';
import { DEFAULT_THRESHOLD, resolveSharedDataDir } from '@crs/screening-core';
import { parseThresholdOverrides } from './domain/thresholds';

export const screeningConfigSpec = {
  ...commonConfigSpec,
  // The key store of personal data (docs/privacy.md); only used with PRIVACY_KEK_FILE.
  ...mongoConfigSpec,
  ...privacyConfigSpec,
  HEALTH_PORT: num({ default: 9105, desc: 'health, metrics and the screening HTTP API' }),
  CONSUMER_GROUP: str({ default: 'screening' }),
  TRANSACTIONAL_ID_PREFIX: str({ default: 'screening' }),
  LISTS_CONFIG_FILE: str({
    default: '',
    desc: 'JSON list sources (see docs/screening.md); empty = demo lists of CRS_SHARED_DATA',
  }),
  CRS_SHARED_DATA: str({
    default: '',
    desc: 'shared data folder with lists/ (default <repo>/../shared/data)',
  }),
  LIST_REFRESH_INTERVAL_SEC: num({ default: 3600, desc: 'seconds between list refreshes; 0 = off' }),
  SCREENING_THRESHOLD: num({
    default: DEFAULT_THRESHOLD,
    desc: 'alert threshold of every list unless overridden',
  }),
  SCREENING_THRESHOLD_OVERRIDES: str({ default: '', desc: 'JSON: businessUnit|* -> list|* -> threshold' }),
  RESCREEN_CHUNK_SIZE: num({
    default: 500,
    desc: 'customers re-screened between two yields to the event loop',
  }),
  JAPANESE_READINGS: bool({
    default: true,
    desc: 'read names in Chinese characters as Japanese too (kuromoji dictionary: about 220 MB of memory, 1-2 s at start)',
  }),
  AUTH_JWKS_URL: str({ default: '' }),
  AUTH_JWKS_FILE: str({ default: '' }),
  AUTH_ISSUER: str({ default: 'http://127.0.0.1:8080/local-issuer' }),
  AUTH_AUDIENCE: str({ default: 'crs-api' }),
  KAFKA_ACK_TIMEOUT_MS: num({ default: 5000 }),
};

export function loadScreeningConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(screeningConfigSpec, env);
  if (!config.AUTH_JWKS_URL && !config.AUTH_JWKS_FILE)
    throw new Error('invalid configuration: set AUTH_JWKS_URL or AUTH_JWKS_FILE');
  if (!(config.SCREENING_THRESHOLD > 0 && config.SCREENING_THRESHOLD <= 1))
    throw new Error('invalid configuration: SCREENING_THRESHOLD must be in (0, 1]');
  return {
    ...config,
    sharedDataDir: resolveSharedDataDir({ CRS_SHARED_DATA: config.CRS_SHARED_DATA || undefined }),
    thresholdOverrides: parseThresholdOverrides(config.SCREENING_THRESHOLD_OVERRIDES),
  };
}

export type ScreeningConfig = ReturnType<typeof loadScreeningConfig>;
