import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { randomSlice } from './random-pool';
import { readFileSync } from 'node:fs';
import { b64u } from './encrypted-value';
import { DataKeyUnwrapError, KekSetInvalidError } from './errors';

/**
 * The key-encryption keys (KEKs) of an installation, as kept in the file PRIVACY_KEK_FILE points at
 * (a mounted Secret in Kubernetes):
 *
 *   { "active": "kek-2026-11", "keys": [{ "id": "kek-2026-11", "key": "<base64, 32 bytes>" },
 *                                       { "id": "kek-2025-01", "key": "..." }] }
 *
 * New data keys are wrapped with the active KEK; a stored data key is unwrapped with the KEK it names,
 * so older KEKs stay in the file until `rotate` has rewrapped every data key (docs/privacy.md).
 */
export interface KekSetDocument {
  active: string;
  keys: Array<{ id: string; key: string }>;
}

/** A data key as stored: wrapped with one KEK, bound to its customer and key id. */
export interface WrappedKey {
  kek: string;
  /** `<iv>:<tag>:<ciphertext>`, base64url */
  wrapped: string;
}

const ID = /^[A-Za-z0-9._-]{1,64}$/;

export class KeyEncryptionKeys {
  private constructor(
    readonly activeId: string,
    private readonly keys: ReadonlyMap<string, Buffer>,
  ) {}

  /** Parses and checks a key set; the message of a failure never contains key material. */
  static fromDocument(doc: unknown): KeyEncryptionKeys {
    const d = doc as Partial<KekSetDocument> | null;
    if (!d || typeof d !== 'object' || typeof d.active !== 'string' || !Array.isArray(d.keys))
      throw new KekSetInvalidError('The KEK set must be an object with "active" (an id) and "keys" (a list)');
    const keys = new Map<string, Buffer>();
    for (const [i, entry] of d.keys.entries()) {
      const id = (entry as { id?: unknown } | null)?.id;
      const key = (entry as { key?: unknown } | null)?.key;
      if (typeof id !== 'string' || !ID.test(id))
        throw new KekSetInvalidError(`keys[${i}].id must match ${ID.source}`);
      if (keys.has(id)) throw new KekSetInvalidError(`KEK id ${id} appears twice`);
      const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : Buffer.alloc(0);
      if (bytes.length !== 32) throw new KekSetInvalidError(`KEK ${id} must be 32 bytes, base64-encoded`);
      keys.set(id, bytes);
    }
    if (!keys.has(d.active)) throw new KekSetInvalidError(`The active KEK ${d.active} is not among the keys`);
    return new KeyEncryptionKeys(d.active, keys);
  }

  /** Reads PRIVACY_KEK_FILE. */
  static fromFile(path: string): KeyEncryptionKeys {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new KekSetInvalidError(
        `The KEK file ${path} cannot be read (${(err as NodeJS.ErrnoException).code})`,
      );
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new KekSetInvalidError(`The KEK file ${path} is not JSON`);
    }
    return KeyEncryptionKeys.fromDocument(doc);
  }

  /** A new key set document with one fresh active KEK (for `privacy kek new` and tests). */
  static generateDocument(id: string, previous?: KekSetDocument): KekSetDocument {
    return {
      active: id,
      keys: [{ id, key: randomBytes(32).toString('base64') }, ...(previous?.keys ?? [])],
    };
  }

  has(id: string): boolean {
    return this.keys.has(id);
  }

  /** Wraps a data key with the active KEK. */
  wrap(streamId: string, keyId: string, dataKey: Buffer): WrappedKey {
    const kek = this.activeId;
    const iv = randomSlice(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(kek)!, iv, { authTagLength: 16 });
    cipher.setAAD(wrapAssociatedData(kek, streamId, keyId));
    const ciphertext = Buffer.concat([cipher.update(dataKey), cipher.final()]);
    return { kek, wrapped: `${b64u(iv)}:${b64u(cipher.getAuthTag())}:${b64u(ciphertext)}` };
  }

  /** Unwraps a stored data key with the KEK it names; throws DataKeyUnwrapError when that fails. */
  unwrap(streamId: string, keyId: string, stored: WrappedKey): Buffer {
    const kekBytes = this.keys.get(stored.kek);
    if (!kekBytes) throw new DataKeyUnwrapError(stored.kek, 'unknown-kek');
    const [iv, tag, ciphertext] = stored.wrapped.split(':').map((p) => Buffer.from(p, 'base64url'));
    try {
      const decipher = createDecipheriv('aes-256-gcm', kekBytes, iv!, { authTagLength: 16 });
      decipher.setAAD(wrapAssociatedData(stored.kek, streamId, keyId));
      decipher.setAuthTag(tag!);
      const key = Buffer.concat([decipher.update(ciphertext!), decipher.final()]);
      if (key.length !== 32) throw new Error('length');
      return key;
    } catch {
      throw new DataKeyUnwrapError(stored.kek, 'unauthenticated');
    }
  }
}

/** A wrapped data key authenticates only in its own customer's document, under its own key id. */
function wrapAssociatedData(kek: string, streamId: string, keyId: string): Buffer {
  return Buffer.from(`crs:dek:1\u0000${kek}\u0000${streamId}\u0000${keyId}`, 'utf8');
}
