import type { JSONWebKeySet } from 'jose';
import { AuthConfigInvalidError } from './errors/AuthConfigInvalidError';

/**
 * Parses a JWKS document meant for verification. Private or symmetric key material in it is a
 * deployment mistake worth failing on: whoever can read the file could then sign.
 */
export function readPublicJwks(text: string, source: string): JSONWebKeySet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new AuthConfigInvalidError(`JWKS ${source} is not JSON`, { cause: err });
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    throw new AuthConfigInvalidError(`JWKS ${source} has no "keys" array`);
  }
  const keys = (parsed as { keys: unknown[] }).keys;
  for (const key of keys) {
    if (typeof key !== 'object' || key === null) {
      throw new AuthConfigInvalidError(`JWKS ${source} contains a key that is not an object`);
    }
    const { kty, d } = key as { kty?: unknown; d?: unknown };
    if (kty === 'oct' || d !== undefined) {
      throw new AuthConfigInvalidError(`JWKS ${source} contains private or symmetric key material`);
    }
  }
  return parsed as JSONWebKeySet;
}
