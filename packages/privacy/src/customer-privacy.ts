import type { Db } from 'mongodb';
import { CodedError } from '@crs/runtime';
import {
  encryptFieldsWith,
  sealFieldsWith,
  containsEncrypted,
  decryptFieldsWith,
  type DecryptedRecord,
} from './personal-data';
import { DataKeyStore } from './data-key-store';
import type { DataKey } from './field-cipher';
import { KeyEncryptionKeys } from './key-encryption-keys';
import { CustomerPersonalFields, ScreeningHitPersonalFields } from './personal-fields';

/**
 * A service without a key set (PRIVACY_KEK_FILE unset) met an encrypted value: it must not go on with
 * ciphertext as if it were a name. A configuration error, loud, never shown as erased.
 */
export class PrivacyKeysMissingError extends CodedError {
  constructor() {
    super(
      'PRIVACY_KEYS_MISSING',
      'Encrypted personal data met by a process without PRIVACY_KEK_FILE: configure the key set',
    );
  }
}

/** A screening hit, as far as privacy is concerned (ScreeningHitData of @crs/contracts). */
type Hit = object;

/** Erasures a process remembers having seen in the log (`noteErasure`), the oldest forgotten first. */
const MAX_SEEN_ERASURES = 100_000;

/** What a hit list looks like after decryption: erased values null, `erased` when any was. */
export interface DecryptedHits<H> {
  hits: H[];
  erased: boolean;
}

/**
 * Personal data of customers as the services handle it (docs/privacy.md): the ingress encrypts the
 * customer record before anything is published, screening encrypts the personal fields of its hits, and
 * every reader decrypts at the edge where a person or another system sees the data. Without a key set
 * (`PRIVACY_KEK_FILE` unset) it passes records through and refuses to read encrypted ones.
 */
export class CustomerPrivacy {
  /** Erasures seen in the log: stream → the erased key generation (null: whatever key it had then). */
  private readonly seenErasures = new Map<string, string | null>();

  private constructor(readonly store: DataKeyStore | undefined) {}

  /** Encrypting and decrypting with keys in `db` (the `keys` owner database). */
  static withKeys(store: DataKeyStore): CustomerPrivacy {
    return new CustomerPrivacy(store);
  }

  /** Plaintext mode: nothing is encrypted; an encrypted value met is an error (PrivacyKeysMissingError). */
  static disabled(): CustomerPrivacy {
    return new CustomerPrivacy(undefined);
  }

  /**
   * From the service's settings: a key set file means encryption; none means plaintext mode, refused
   * when `required` (PRIVACY_REQUIRED, the Helm chart's default).
   */
  static fromConfig(
    config: { PRIVACY_KEK_FILE: string; PRIVACY_KEY_CACHE_TTL_MS: number; PRIVACY_KEY_CACHE_MAX: number },
    db: Db | (() => Db),
    required = false,
  ): CustomerPrivacy {
    if (!config.PRIVACY_KEK_FILE) {
      if (required) throw new PrivacyKeysMissingError();
      return CustomerPrivacy.disabled();
    }
    const keks = KeyEncryptionKeys.fromFile(config.PRIVACY_KEK_FILE);
    return CustomerPrivacy.withKeys(
      new DataKeyStore({
        db: typeof db === 'function' ? db() : db,
        keks,
        cache: { ttlMs: config.PRIVACY_KEY_CACHE_TTL_MS, maxEntries: config.PRIVACY_KEY_CACHE_MAX },
      }),
    );
  }

  get enabled(): boolean {
    return this.store !== undefined;
  }

  /**
   * Encrypts the personal fields of many customers' records (one key round trip for new customers), each
   * record sealed: its personal values in one ciphertext (decision 0054).
   */
  async encryptCustomers<T>(items: readonly { streamId: string; customer: T }[]): Promise<T[]> {
    if (!this.store || items.length === 0) return items.map((i) => i.customer);
    const keys = await this.store.keysFor(items.map((i) => i.streamId));
    return items.map((i) =>
      sealFieldsWith(keys.get(i.streamId)!, i.streamId, i.customer, CustomerPersonalFields),
    );
  }

  /** Encrypts the personal fields of a customer's screening hits (matched names, explanations). */
  async encryptHits<H extends Hit>(streamId: string, hits: readonly H[]): Promise<H[]> {
    if (!this.store || hits.length === 0) return [...hits];
    const key = await this.store.keyFor(streamId);
    return hits.map((h) => encryptFieldsWith(key, streamId, h, ScreeningHitPersonalFields));
  }

  /**
   * Reads the keys of many customers into this process's key cache at once (a consumer's batch): the
   * decrypt calls that follow find them there instead of reading the store one customer at a time.
   * Nothing to do in plaintext mode. A failed read fails the batch, as the decrypt calls would.
   */
  async warmKeys(streamIds: Iterable<string>): Promise<void> {
    if (!this.store) return;
    await this.store.currentKeys(streamIds);
  }

  /**
   * Decrypts any record of one customer whose encrypted values sit at paths relative to it (a customer
   * record, or one hit). Erased values come back as null (DecryptedRecord.erased).
   */
  async decrypt<T>(streamId: string, record: T): Promise<DecryptedRecord<T>> {
    if (!containsEncrypted(record)) return { record, erased: false, erasedPaths: [], invalidPaths: [] };
    return decryptFieldsWith(await this.usableKey(streamId), streamId, record);
  }

  /**
   * A consumer of the customer events met the customer's PersonalDataErased (`keyId`: the key generation
   * it erased): from now on this process decrypts no value of that generation, whether or not the key is
   * still cached here or still in the store (the projector deletes it when it gets to the event). A
   * later relationship's key (a new generation) still decrypts. Forgets the cached key too.
   */
  noteErasure(streamId: string, keyId: string | undefined): void {
    this.forget(streamId);
    this.seenErasures.delete(streamId);
    this.seenErasures.set(streamId, keyId ?? null);
    if (this.seenErasures.size > MAX_SEEN_ERASURES) {
      this.seenErasures.delete(this.seenErasures.keys().next().value!);
    }
  }

  /** The customer's current key, unless an erasure of that generation was seen (`noteErasure`). */
  private async usableKey(streamId: string): Promise<DataKey | undefined> {
    if (!this.store) throw new PrivacyKeysMissingError();
    const key = await this.store.currentKey(streamId);
    if (key === undefined || !this.seenErasures.has(streamId)) return key;
    const erased = this.seenErasures.get(streamId);
    if (erased !== null && erased !== key.keyId) return key;
    // Not kept: the next read goes to the store, where a new relationship's key shows up.
    this.forget(streamId);
    return undefined;
  }

  /**
   * A record whose erasure the read model has recorded: every encrypted value comes back as null without
   * a key being looked at, so a key this process still has cached (read just before the erasure deleted
   * it, within the cache's TTL) cannot show it. Forgets that cached key too.
   */
  erased<T>(streamId: string, record: T): DecryptedRecord<T> {
    this.forget(streamId);
    if (!containsEncrypted(record)) return { record, erased: false, erasedPaths: [], invalidPaths: [] };
    return decryptFieldsWith(undefined, streamId, record);
  }

  /** Decrypts each hit of a customer (each hit is its own root, as it was encrypted). */
  async decryptHits<H>(streamId: string, hits: readonly H[]): Promise<DecryptedHits<H>> {
    if (!containsEncrypted(hits)) return { hits: [...hits], erased: false };
    return hitsWith(await this.usableKey(streamId), streamId, hits);
  }

  /**
   * Decrypts the data of a customer event or its summary (callbacks, the pull endpoint): the customer
   * record at `customer` and each hit at `hits[]`, each its own root as it was encrypted.
   */
  async revealEventData(
    streamId: string,
    data: Record<string, unknown>,
    /** The customer's erasure is recorded (read model): every value null, no key looked at (`erased`). */
    knownErased = false,
  ): Promise<{ data: Record<string, unknown>; erased: boolean }> {
    if (!containsEncrypted(data)) return { data, erased: false };
    const out = { ...data };
    let erased = false;
    if (out.customer !== undefined && out.customer !== null) {
      const d = knownErased
        ? this.erased(streamId, out.customer)
        : await this.decrypt(streamId, out.customer);
      out.customer = d.record;
      erased ||= d.erased;
    }
    if (Array.isArray(out.hits)) {
      const h = knownErased
        ? this.erasedHits(streamId, out.hits as unknown[])
        : await this.decryptHits(streamId, out.hits as unknown[]);
      out.hits = h.hits;
      erased ||= h.erased;
    }
    return { data: out, erased };
  }

  /** Hits of a customer whose erasure is recorded: every encrypted value null (see `erased`). */
  private erasedHits<H>(streamId: string, hits: readonly H[]): DecryptedHits<H> {
    this.forget(streamId);
    return hitsWith(undefined, streamId, hits);
  }

  /** Forgets this process's cached key of a customer (after asking for its erasure). */
  forget(streamId: string): void {
    this.store?.forgetCached(streamId);
  }

  /**
   * Erases the key generation `keyId` of a customer (or whatever key it has when keyId is undefined):
   * idempotent; a later relationship's key survives a replayed erasure.
   */
  async erase(streamId: string, keyId: string | undefined): Promise<{ erased: boolean }> {
    if (!this.store) return { erased: false };
    return { erased: (await this.store.erase(streamId, keyId)).erased };
  }

  /**
   * A consumer of the customer events met the customer's PersonalDataErased: nothing of that key
   * generation is decrypted by this process from now on (`noteErasure`), and the generation is deleted
   * from the store (`erase`, idempotent, whichever consumer gets there first).
   */
  async applyErasure(streamId: string, keyId: string | undefined): Promise<void> {
    this.noteErasure(streamId, keyId);
    await this.erase(streamId, keyId);
  }
}

/** Each hit decrypted with `key` (each hit is its own root, as it was encrypted); no key: all erased. */
function hitsWith<H>(key: DataKey | undefined, streamId: string, hits: readonly H[]): DecryptedHits<H> {
  let erased = false;
  const out = hits.map((h) => {
    const d = decryptFieldsWith(key, streamId, h);
    erased ||= d.erased;
    return d.record;
  });
  return { hits: out, erased };
}
