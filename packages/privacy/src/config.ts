// From envalid itself (a dependency of this package), so the declaration file can name the spec's type.
import { num, str } from 'envalid';

/** Settings of every process that encrypts or decrypts personal data (docs/privacy.md). */
export const privacyConfigSpec = {
  PRIVACY_KEK_FILE: str({
    default: '',
    desc: 'JSON key set of key-encryption keys ({active, keys: [{id, key}]}); a mounted Secret',
  }),
  PRIVACY_KEY_CACHE_TTL_MS: num({
    default: 60_000,
    desc: 'how long an unwrapped data key is used before the store is asked again; bounds how long another process still reads a customer after an erasure',
  }),
  PRIVACY_KEY_CACHE_MAX: num({ default: 10_000, desc: 'unwrapped data keys held in memory (LRU)' }),
};
