import { createCipheriv, createDecipheriv } from 'node:crypto';
import { formatEncryptedValue, parseEncryptedValue } from './encrypted-value';
import { randomSlice } from './random-pool';

/** A customer's data key, unwrapped: 32 bytes for AES-256-GCM and the id stored with every value. */
export interface DataKey {
  readonly keyId: string;
  readonly key: Buffer;
}

/**
 * What decrypting one value gives. Never an exception: a read path shows `erased` or `invalid` values
 * as absent (docs/privacy.md, "Erasure semantics") instead of failing the request.
 * - `erased`: the customer has no key with this value's key id any more (the key was erased, or the
 *   value was made with a key generation that an erasure ended).
 * - `invalid`: the value is malformed or does not authenticate under this customer, this field and
 *   this key: tampered with, cut, or moved from another customer or field. Worth an alert.
 */
export type DecryptResult =
  | { readonly status: 'ok'; readonly value: unknown }
  | { readonly status: 'erased' }
  | { readonly status: 'invalid'; readonly reason: 'malformed' | 'unauthenticated' };

const ALGORITHM = 'aes-256-gcm';

/**
 * Associated data of a field value: the ciphertext authenticates only under the customer (streamId)
 * and the field path pattern it was made for, so it cannot be moved to another customer or field.
 */
export function fieldAssociatedData(keyId: string, streamId: string, path: string): Buffer {
  return Buffer.from(`crs:enc:1\u0000${keyId}\u0000${streamId}\u0000${path}`, 'utf8');
}

/** Encrypts one value (any JSON value) for one customer's field; a fresh random 96-bit IV every time. */
export function encryptValue(key: DataKey, streamId: string, path: string, value: unknown): string {
  const plaintext = JSON.stringify(value);
  if (plaintext === undefined) throw new TypeError('Only JSON values can be encrypted');
  const iv = randomSlice(12);
  const cipher = createCipheriv(ALGORITHM, key.key, iv, { authTagLength: 16 });
  cipher.setAAD(fieldAssociatedData(key.keyId, streamId, path));
  // GCM is a stream mode: final() adds no bytes, so update's output is the whole ciphertext.
  const ciphertext = cipher.update(plaintext, 'utf8');
  cipher.final();
  return formatEncryptedValue({ keyId: key.keyId, iv, tag: cipher.getAuthTag(), ciphertext });
}

/**
 * Decrypts one value. `key` is the customer's current data key, undefined when the customer has none
 * (erased, or never had one): then the value is `erased`, whatever it holds.
 */
export function decryptValue(
  key: DataKey | undefined,
  streamId: string,
  path: string,
  encrypted: string,
): DecryptResult {
  const parts = parseEncryptedValue(encrypted);
  if (!parts) return { status: 'invalid', reason: 'malformed' };
  if (!key || key.keyId !== parts.keyId) return { status: 'erased' };
  try {
    const decipher = createDecipheriv(ALGORITHM, key.key, parts.iv, { authTagLength: 16 });
    decipher.setAAD(fieldAssociatedData(key.keyId, streamId, path));
    decipher.setAuthTag(parts.tag);
    // GCM: final() adds no bytes; it throws when the tag does not authenticate.
    const plaintext = decipher.update(parts.ciphertext).toString('utf8');
    decipher.final();
    return { status: 'ok', value: JSON.parse(plaintext) as unknown };
  } catch {
    return { status: 'invalid', reason: 'unauthenticated' };
  }
}
