// From envalid itself (a dependency of this package), so the declaration file can name the spec's type.
import { bool, num, str } from 'envalid';

/** Settings of every process that encrypts or decrypts personal data (docs/privacy.md). */
export const privacyConfigSpec = {
  PRIVACY_KEK_FILE: str({
    default: '',
    desc: 'JSON key set of key-encryption keys ({active, keys: [{id, key}]}); a mounted Secret',
  }),
  PRIVACY_REQUIRED: bool({
    default: false,
    desc: 'refuse to start without PRIVACY_KEK_FILE (the Helm chart sets it): personal data is never published in plain by mistake',
  }),
  PRIVACY_KEY_CACHE_TTL_MS: num({
    default: 60_000,
    desc: 'how long an unwrapped data key is used before the store is asked again; bounds how long another process still reads a customer after an erasure',
  }),
  PRIVACY_KEY_CACHE_MAX: num({ default: 10_000, desc: 'unwrapped data keys held in memory (LRU)' }),
};

/** The retention periods of personal data (docs/privacy.md, "Retention"): the ingress and the retention job. */
export const retentionConfigSpec = {
  PRIVACY_RETENTION_YEARS: num({
    default: 5,
    desc: 'years personal data is kept after the business relationship ends (EU AML directives: 5)',
  }),
  PRIVACY_RETENTION_BY_BU: str({
    default: '',
    desc: 'periods of business units that differ from the default: BU1:7,BU2:10',
  }),
};
