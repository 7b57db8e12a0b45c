import type { Collection, Db } from 'mongodb';
import { detectDialect, findByIds, insertNew, isDuplicateKey, pagesById, withLastPage } from '@crs/store';
import { b64u } from './encrypted-value';
import { randomBytesCopy, randomSlice } from './random-pool';
import { DataKeyCache, type DataKeyCacheOptions } from './data-key-cache';
import { DataKeyUnavailableError } from './errors';
import type { DataKey } from './field-cipher';
import type { KeyEncryptionKeys, WrappedKey } from './key-encryption-keys';

/** One customer's data key as stored in `data_keys`: never in plain, always wrapped with a KEK. */
export interface DataKeyDocument extends WrappedKey {
  /** streamId: `<businessUnit>:<customerExtId>` */
  _id: string;
  keyId: string;
  createdAt: Date;
  rotatedAt?: Date;
}

/** Progress of a KEK rotation pass, kept in `data_key_rotations` under the target KEK's id. */
export interface RotationProgress {
  _id: string;
  /** The last streamId handled; the pass resumes after it. null before the first batch. */
  after: string | null;
  scanned: number;
  rewrapped: number;
  alreadyCurrent: number;
  /** Keys erased or replaced between the read and the rewrap: nothing to do for them. */
  vanished: number;
  startedAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface RotationReport extends Omit<RotationProgress, '_id'> {
  kek: string;
  done: boolean;
}

/** Where field encryption gets keys from: the store, or a map in unit tests (MemoryDataKeySource). */
export interface DataKeySource {
  /** The customer's key, created when it has none (the first personal value it gets). */
  keyFor(streamId: string): Promise<DataKey>;
  /** The customer's current key; undefined when it has none: erased, or never created. */
  currentKey(streamId: string): Promise<DataKey | undefined>;
}

export interface DataKeyStoreOptions {
  db: Db;
  keks: KeyEncryptionKeys;
  cache?: DataKeyCacheOptions;
  /** Collection names (defaults `data_keys` and `data_key_rotations`). */
  collection?: string;
  rotationsCollection?: string;
  clock?: () => Date;
}

/**
 * Data keys per customer in a MongoDB collection, wrapped with the installation's KEK (envelope
 * encryption). Hot paths read and write by `_id` only (FerretDB v1: decision 0008); no transactions,
 * no TTL indexes. Unwrapped keys are cached for a short time (DataKeyCacheOptions.ttlMs).
 */
export class DataKeyStore implements DataKeySource {
  readonly keys: Collection<DataKeyDocument>;
  private readonly db: Db;
  private readonly rotations: Collection<RotationProgress>;
  private readonly cache: DataKeyCache;
  private readonly keks: KeyEncryptionKeys;
  private readonly clock: () => Date;
  /** Creations under way in this process, so that concurrent callers share one. */
  private readonly creating = new Map<string, Promise<DataKey>>();
  /**
   * Reads of current keys under way in this process, so that concurrent callers share one: the
   * screening service's directory reader and its reactor read the keys of the same customers at the
   * same moment (about a third of its key reads under light load were such doubles, measured).
   */
  private readonly reading = new Map<string, Promise<DataKey | undefined>>();

  constructor(opts: DataKeyStoreOptions) {
    this.db = opts.db;
    this.keys = opts.db.collection<DataKeyDocument>(opts.collection ?? 'data_keys');
    this.rotations = opts.db.collection<RotationProgress>(opts.rotationsCollection ?? 'data_key_rotations');
    this.cache = new DataKeyCache(opts.cache);
    this.keks = opts.keks;
    this.clock = opts.clock ?? (() => new Date());
  }

  async keyFor(streamId: string): Promise<DataKey> {
    const cached = this.cache.get(streamId);
    if (cached) return cached;
    const pending = this.creating.get(streamId);
    if (pending) return pending;
    const created = this.readOrCreate(streamId).finally(() => this.creating.delete(streamId));
    this.creating.set(streamId, created);
    return created;
  }

  /**
   * The keys of many customers at once, creating those that have none (a batch import): the cached ones
   * from memory, the others with one unordered `insertMany` of fresh keys; a customer that already has a
   * key (E11000) is read by `_id`. One round trip for a batch of new customers instead of one per customer.
   */
  async keysFor(streamIds: readonly string[]): Promise<Map<string, DataKey>> {
    const out = new Map<string, DataKey>();
    const docs: DataKeyDocument[] = [];
    const created: DataKey[] = [];
    const createdAt = this.clock();
    for (const streamId of streamIds) {
      if (out.has(streamId)) continue;
      const cached = this.cache.get(streamId);
      if (cached) {
        out.set(streamId, cached);
        continue;
      }
      const key = randomBytesCopy(32);
      const keyId = b64u(randomSlice(9));
      const wrapped = this.keks.wrap(streamId, keyId, key);
      docs.push({ _id: streamId, keyId, kek: wrapped.kek, wrapped: wrapped.wrapped, createdAt });
      created.push({ keyId, key });
      // Held until the insert says whether it is stored: a later duplicate in the list is skipped.
      out.set(streamId, created[created.length - 1]!);
    }
    if (docs.length === 0) return out;
    // E11000: the customer has a key already. Any other failure, or one that does not say what became of
    // every document (a connection lost mid-command), is thrown: no key is used unless it is stored.
    const taken = new Set<number>(await insertNew(this.keys, docs));
    const existing: Promise<void>[] = [];
    docs.forEach((doc, index) => {
      if (taken.has(index)) {
        existing.push(this.keyFor(doc._id).then((key) => void out.set(doc._id, key)));
        return;
      }
      this.cache.set(doc._id, created[index]!);
    });
    await Promise.all(existing);
    return out;
  }

  async currentKey(streamId: string): Promise<DataKey | undefined> {
    const cached = this.cache.get(streamId);
    if (cached) return cached;
    const pending = this.reading.get(streamId);
    if (pending) return pending;
    // Absence is never cached: a key another process creates a moment later must be found at once.
    return this.shareRead(
      [streamId],
      this.keys.findOne({ _id: streamId }).then((doc) => (doc ? [doc] : [])),
    ).get(streamId)!;
  }

  /**
   * The current keys of many customers at once (the customers of a consumed batch): the cached ones from
   * memory, those another caller is reading already from that read, the others by `_id` list
   * (`findByIds`: decision 0032) instead of one find per customer. Customers without a key are absent
   * from the map; as with currentKey, absence is never cached.
   */
  async currentKeys(streamIds: Iterable<string>): Promise<Map<string, DataKey>> {
    const out = new Map<string, DataKey>();
    const waits = new Map<string, Promise<DataKey | undefined>>();
    const missing: string[] = [];
    for (const streamId of new Set(streamIds)) {
      const cached = this.cache.get(streamId);
      if (cached) out.set(streamId, cached);
      else {
        const pending = this.reading.get(streamId);
        if (pending) waits.set(streamId, pending);
        else missing.push(streamId);
      }
    }
    if (missing.length > 0) {
      const read = findByIds(this.keys, missing).then((found) => [...found.values()]);
      for (const [streamId, key] of this.shareRead(missing, read)) waits.set(streamId, key);
    }
    const keys = await Promise.all(waits.values());
    [...waits.keys()].forEach((streamId, i) => {
      if (keys[i]) out.set(streamId, keys[i]);
    });
    return out;
  }

  /** Registers one store read of `streamIds` as theirs until it ends; each id's key (or undefined). */
  private shareRead(
    streamIds: readonly string[],
    read: Promise<DataKeyDocument[]>,
  ): Map<string, Promise<DataKey | undefined>> {
    const unwrapped = read.then((docs) => new Map(docs.map((doc) => [doc._id, this.unwrap(doc)])));
    const shares = new Map<string, Promise<DataKey | undefined>>();
    for (const streamId of streamIds) {
      const share: Promise<DataKey | undefined> = unwrapped.then((keys) => {
        const key = keys.get(streamId);
        // Cached unless an erasure in this process ended the read's turn meanwhile (it read the key before).
        if (key && this.reading.get(streamId) === share) this.cache.set(streamId, key);
        return key;
      });
      this.reading.set(streamId, share);
      shares.set(streamId, share);
      share
        .finally(() => {
          if (this.reading.get(streamId) === share) this.reading.delete(streamId);
        })
        .catch(() => undefined); // the callers get the error
    }
    return shares;
  }

  /**
   * Erases a customer's data key: every value encrypted with it becomes unreadable for good, in every
   * copy (topics, replays, backups of the log, dead letters, projections). With `keyId`, only while the
   * key is still that generation (an erasure recorded in the log, applied again by a replay or a
   * redelivery, must not erase the key of a later relationship). Idempotent: `erased` is false when there
   * was no such key. Other processes may use a cached copy until its TTL ends.
   */
  async erase(streamId: string, keyId?: string): Promise<{ erased: boolean; keyId?: string }> {
    this.cache.drop(streamId);
    this.reading.delete(streamId);
    const doc = await deleteDataKey(this.keys, streamId, keyId);
    this.cache.drop(streamId);
    return doc ? { erased: true, keyId: doc.keyId } : { erased: false };
  }

  /** Drops every cached key (tests, and a process that learns of erasures it did not make). */
  forgetCached(streamId?: string): void {
    if (streamId === undefined) {
      this.cache.clear();
      this.reading.clear();
    } else {
      this.cache.drop(streamId);
      this.reading.delete(streamId);
    }
  }

  /**
   * Rewraps every data key that is not wrapped with the active KEK, in batches, resumably: progress is
   * saved after each batch, so a run that stops (maxKeys reached, crash, deploy) goes on where it was.
   * A finished pass is started afresh by the next call; a pass that rewraps nothing proves no key needs
   * an older KEK any more, which may then leave the key set. Run it after every process has the new
   * key set (otherwise one may still wrap new keys with the old active KEK).
   */
  async rotate(
    opts: { batchSize?: number; maxKeys?: number; onProgress?: (report: RotationReport) => void } = {},
  ): Promise<RotationReport> {
    const batchSize = opts.batchSize ?? 200;
    const maxKeys = opts.maxKeys ?? Number.POSITIVE_INFINITY;
    const kek = this.keks.activeId;
    const now = this.clock();
    let progress = await this.rotations.findOne({ _id: kek });
    if (!progress || progress.finishedAt) {
      progress = {
        _id: kek,
        after: null,
        scanned: 0,
        rewrapped: 0,
        alreadyCurrent: 0,
        vanished: 0,
        startedAt: now,
        updatedAt: now,
        finishedAt: null,
      };
    }
    if (maxKeys <= 0) return report(kek, progress);
    let handled = 0;
    // In `_id` order, resumably (`pagesById`: decision 0063; on FerretDB v1 a sorted page read the
    // whole collection).
    const pages = withLastPage(
      pagesById(
        this.keys,
        {},
        { pageSize: batchSize, after: progress.after, dialect: await detectDialect(this.db) },
      ),
    );
    for await (const { rows, last } of pages) {
      const batch = rows.slice(0, maxKeys - handled);
      for (const doc of batch) {
        progress.scanned += 1;
        if (doc.kek === kek) {
          progress.alreadyCurrent += 1;
          continue;
        }
        const key = this.keks.unwrap(doc._id, doc.keyId, doc);
        const rewrapped = this.keks.wrap(doc._id, doc.keyId, key);
        // Conditional on the key generation and the old KEK, so a key erased (or erased and created
        // anew) since the read is never brought back.
        const result = await this.keys.updateOne(
          { _id: doc._id, keyId: doc.keyId, kek: doc.kek },
          { $set: { kek: rewrapped.kek, wrapped: rewrapped.wrapped, rotatedAt: this.clock() } },
        );
        if (result.matchedCount === 1) progress.rewrapped += 1;
        else progress.vanished += 1;
      }
      handled += batch.length;
      if (batch.length > 0) progress.after = batch[batch.length - 1]!._id;
      progress.updatedAt = this.clock();
      // Done when the last page was handled whole (maxKeys may stop a pass inside a page).
      if (last && batch.length === rows.length) progress.finishedAt = progress.updatedAt;
      await this.rotations.replaceOne({ _id: kek }, progress, { upsert: true });
      opts.onProgress?.(report(kek, progress));
      if (progress.finishedAt || handled >= maxKeys) break;
    }
    return report(kek, progress);
  }

  private async readOrCreate(streamId: string): Promise<DataKey> {
    // An erasure between our insert's collision and the read leaves nothing to read: try again.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const existing = await this.keys.findOne({ _id: streamId });
      if (existing) return this.remember(existing);
      const key = randomBytesCopy(32);
      const keyId = b64u(randomSlice(9));
      const doc: DataKeyDocument = {
        _id: streamId,
        keyId,
        ...this.keks.wrap(streamId, keyId, key),
        createdAt: this.clock(),
      };
      try {
        await this.keys.insertOne(doc);
        const created = { keyId, key };
        this.cache.set(streamId, created);
        return created;
      } catch (err) {
        // Another process created the key first: the winner's key is the customer's key.
        if (!isDuplicateKey(err)) throw err;
      }
    }
    throw new DataKeyUnavailableError();
  }

  private remember(doc: DataKeyDocument): DataKey {
    const key = this.unwrap(doc);
    this.cache.set(doc._id, key);
    return key;
  }

  private unwrap(doc: DataKeyDocument): DataKey {
    return { keyId: doc.keyId, key: this.keks.unwrap(doc._id, doc.keyId, doc) };
  }
}

function report(kek: string, p: RotationProgress): RotationReport {
  const { _id: _omit, ...rest } = p;
  return { kek, ...rest, done: p.finishedAt !== null };
}

/**
 * Deletes a customer's data key without the key set (the projector applies recorded erasures this way:
 * docs/privacy.md). Only the generation `keyId` when given, so an erasure applied again (redelivery,
 * replay) never takes the key of a later relationship. Idempotent.
 */
export async function eraseDataKey(
  db: Db,
  streamId: string,
  keyId: string | undefined,
  collection = 'data_keys',
): Promise<boolean> {
  return (await deleteDataKey(db.collection<DataKeyDocument>(collection), streamId, keyId)) !== null;
}

/** The one deletion of a data key: the generation `keyId` only when given. */
function deleteDataKey(
  keys: Collection<DataKeyDocument>,
  streamId: string,
  keyId: string | undefined,
): Promise<DataKeyDocument | null> {
  return keys.findOneAndDelete(keyId === undefined ? { _id: streamId } : { _id: streamId, keyId });
}
