import { randomUUID } from 'node:crypto';
import type { AnyBulkWriteOperation, Collection, Db, Document, Filter } from 'mongodb';
import {
  CommunicationKeyLookup,
  OwnedCollections,
  detectDialect,
  dropIndexIfThere,
  findByIds,
  indexCommunicationNumbers,
  insertNew,
  isDuplicateKey,
  markCommunicationKeys,
  type IndexUpkeep,
  type StoreDialect,
} from '@crs/store';

import type {
  DeliveryAttempt,
  DeliveryDoc,
  QueueEntry,
  BatchOutcome,
  RecordedAttempt,
  RedeliverFilter,
  StoredDelivery,
} from './delivery-model';

export type {
  DeliveryAttempt,
  DeliveryCloudEvent,
  DeliveryDoc,
  QueueEntry,
  NewDelivery,
  BatchOutcome,
  RecordedAttempt,
  RedeliverFilter,
  StoredDelivery,
} from './delivery-model';

const LANE = { streamId: 1, endpointId: 1, streamVersion: 1, nextAttemptAt: 1, attempts: 1 } as const;

/**
 * The callback service's progress per consumed partition: the last offset whose deliveries may have been
 * sent (written before they are sent). Owned by the callback service like the log and the queue.
 */
export const CallbackProgressCollection = OwnedCollections.callbackProgress;

interface ProgressDoc {
  _id: string;
  offset: number;
}

function queueEntryOf(o: BatchOutcome): QueueEntry {
  return {
    _id: o.delivery._id,
    streamId: o.delivery.streamId,
    endpointId: o.delivery.endpointId,
    streamVersion: o.delivery.streamVersion,
    nextAttemptAt: o.nextAttemptAt,
    attempts: o.attempts,
  };
}

/** The stored form of a delivery: its CloudEvent as one JSON string (decision 0042). */
function stored<T extends { cloudEvent: DeliveryDoc['cloudEvent'] }>(
  d: T,
): Omit<T, 'cloudEvent'> & { cloudEvent: string } {
  return { ...d, cloudEvent: JSON.stringify(d.cloudEvent) };
}

/** A stored delivery as the service uses it; documents written before decision 0042 hold the object. */
export function deliveryOf(d: StoredDelivery): DeliveryDoc {
  return typeof d.cloudEvent === 'string'
    ? { ...d, cloudEvent: JSON.parse(d.cloudEvent) as DeliveryDoc['cloudEvent'] }
    : { ...d, cloudEvent: d.cloudEvent };
}

/**
 * The callback deliveries, in two collections owned by the callback service:
 * - `callback_deliveries`, the delivery log: one document per event and endpoint, created once (a
 *   redelivered Kafka message does not create a second one), with its outcome and every attempt;
 * - `callback_queue`, the pending ones only (lane, due time, attempts and the claim's lease), removed
 *   when a delivery ends.
 *
 * Why the second collection: FerretDB v1 on SQLite uses no index at all. A query or update filtered on
 * `_id` alone is pushed down to SQLite (a scan, but a cheap one); any other filter makes FerretDB read
 * and decode every document of the collection. Polling `callback_deliveries` for due work, or claiming
 * in it with a conditional update, therefore read every delivery ever made, and callback latency grew
 * with history (docs/callbacks.md, "Queue"). All conditional work (due, claim, order) now runs on the
 * queue, which holds only what is pending; the log is written by `_id` only.
 *
 * The callback service writes a consumed batch's first attempts in bulk (`recordBatch`: one insertMany
 * into the log, one into the queue for what is not done); retries, redeliveries and attempts handed over
 * by a batch go through the queue: a dispatch round's due entries claimed in one go (`due`, `claimMany`),
 * the outcomes of attempts that ended meanwhile written together (`recordAttempts`, decision 0072).
 *
 * A crash between the two writes leaves the queue stale; it heals without sending twice: a claimed
 * entry whose log says the delivery ended is removed instead of sent (unless the entry is a redelivery,
 * which the log then takes back: decision 0067), and a batch's pending delivery that lost its entry gets
 * it back when its Kafka message is consumed again (its offsets are committed only after both writes).
 * A redelivery is one write, to the queue. A log from before its keys may hold what older releases left
 * (a redelivery cut between its two writes, deliveries from before the queue): `restoreQueue` at start.
 */
export class DeliveryStore {
  readonly collection: Collection<StoredDelivery>;
  readonly queue: Collection<QueueEntry>;
  readonly progress: Collection<ProgressDoc>;
  /** The claim under way in this process: claims run one after the other (see claimMany). */
  private claims: Promise<unknown> = Promise.resolve();
  /** Whether the log is keyed by communication, read from it (the delivery-log API, `redeliver`). */
  private readonly byCommunication = new CommunicationKeyLookup();

  private dialect: Promise<StoreDialect> | undefined;

  constructor(private readonly db: Db) {
    this.collection = db.collection<StoredDelivery>(OwnedCollections.deliveries);
    this.queue = db.collection<QueueEntry>(OwnedCollections.callbackQueue);
    this.progress = db.collection<ProgressDoc>(CallbackProgressCollection);
  }

  /**
   * The log's and the queue's indexes (`prepare` calls it after `markKeys`): a keyed log has no
   * `{businessUnit, communicationNumber}` index (its reads by communication go by `_id`), one written before
   * its keys keeps it (decision 0074).
   */
  async ensureIndexes(upkeep: IndexUpkeep = {}): Promise<void> {
    await this.collection.createIndex({ status: 1 });
    await indexCommunicationNumbers(this.collection as unknown as Collection<Document>, upkeep);
    // The due read's order (due time, then `_id`) from the index itself: MongoDB serves a sort only from
    // an index holding its keys in that order, so `{nextAttemptAt: 1}` alone meant an in-memory sort of
    // everything due to return the first few (a large backlog after an outage). Same one index on
    // FerretDB. A queue from before it has `nextAttemptAt_1`, dropped here (decision 0072).
    await this.queue.createIndex({ nextAttemptAt: 1, _id: 1 });
    await dropIndexIfThere(this.queue, 'nextAttemptAt_1');
    await this.queue.createIndex({ streamId: 1 });
  }

  /**
   * What the callback service does to its collections at start, in this order: the log marked keyed when it
   * is empty (`markKeys`), then the indexes (`ensureIndexes`), so an empty log is never indexed by
   * communication number (decision 0074). Returns whether the log is keyed.
   */
  async prepare(upkeep: IndexUpkeep = {}): Promise<boolean> {
    const keyed = await this.markKeys();
    await this.ensureIndexes(upkeep);
    return keyed;
  }

  /**
   * Marks the delivery log as keyed by communication when it is empty (decision 0066), at the callback
   * service's start (`prepare`). Returns whether it is keyed: the `_id`s the service then writes (`deliveryId`). A log
   * written before keeps its `_id` form for good, so a message consumed again always finds its delivery.
   */
  async markKeys(): Promise<boolean> {
    return markCommunicationKeys(this.collection as unknown as Collection<Document>);
  }

  /**
   * Adds the entry unless the delivery is already queued; `reset` (a redelivery) also sets the due time and
   * attempts of an entry that is there, and marks it as a redelivery (decision 0067).
   */
  private async putInQueue(entry: QueueEntry, reset = false): Promise<void> {
    const { _id, nextAttemptAt, attempts, redelivery: _, ...lane } = entry;
    try {
      await this.queue.updateOne(
        { _id },
        reset
          ? { $set: { nextAttemptAt, attempts, redelivery: true }, $unset: { claim: '' }, $setOnInsert: lane }
          : { $setOnInsert: { ...lane, nextAttemptAt, attempts } },
        { upsert: true },
      );
    } catch (err) {
      // Two writers upserting the same new entry: the other one created it.
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /**
   * Writes a consumed batch's deliveries in bulk: one unordered insertMany into the log (inserting a new
   * document is several times cheaper than updating one on FerretDB), then one into the queue for those
   * still pending. A delivery whose log document already exists (its Kafka message consumed again after
   * a crash, or a redelivery meanwhile) is merged into it by `_id` instead: the attempt is appended, a
   * delivered one is marked delivered and leaves the queue, and a pending one keeps (or gets) its entry.
   * Idempotent: writing the same outcomes twice changes nothing but the appended attempts.
   */
  async recordBatch(outcomes: readonly BatchOutcome[], now: Date): Promise<void> {
    if (outcomes.length === 0) return;
    const docs: StoredDelivery[] = outcomes.map((o) => ({
      ...stored(o.delivery),
      status: o.status,
      attempts: o.attempts,
      nextAttemptAt: o.nextAttemptAt,
      createdAt: now,
      log: o.attempt ? [o.attempt] : [],
      ...(o.status === 'delivered' && o.attempt ? { deliveredAt: o.attempt.at } : {}),
    }));
    const duplicates = new Set(await insertNew(this.collection, docs));
    // The status of every delivery already in the log, in one read (a batch consumed again after a crash
    // can hold up to a whole fetch of them).
    const existing =
      duplicates.size === 0
        ? new Map<string, DeliveryDoc['status']>()
        : await this.statusOf([...duplicates].map((i) => outcomes[i]!.delivery._id));
    const queued: QueueEntry[] = [];
    for (const [i, o] of outcomes.entries()) {
      if (duplicates.has(i)) {
        if (await this.mergeIntoExisting(o, existing.get(o.delivery._id))) queued.push(queueEntryOf(o));
      } else if (o.status === 'pending') {
        queued.push(queueEntryOf(o));
      }
    }
    // An entry that exists already (a claim's lease, a redelivery) is left as it is.
    await insertNew(this.queue, queued);
  }

  /**
   * Merges a batch outcome into an existing log document (its status as read by recordBatch); true when
   * the delivery needs a queue entry.
   */
  private async mergeIntoExisting(
    o: BatchOutcome,
    status: DeliveryDoc['status'] | undefined,
  ): Promise<boolean> {
    if (status === undefined) return false;
    if (o.attempt && o.status === 'delivered') {
      await this.collection.updateOne(
        { _id: o.delivery._id },
        {
          $set: { status: 'delivered', deliveredAt: o.attempt.at },
          $inc: { attempts: 1 },
          $push: { log: o.attempt },
        },
      );
      await this.queue.deleteOne({ _id: o.delivery._id });
      return false;
    }
    if (o.attempt) {
      await this.collection.updateOne(
        { _id: o.delivery._id },
        status === 'pending'
          ? { $inc: { attempts: 1 }, $push: { log: o.attempt } }
          : { $push: { log: o.attempt } },
      );
    }
    return status === 'pending';
  }

  /**
   * The last offset of a consumed partition (`topic|partition`) whose deliveries may have been sent:
   * deliveries of messages up to it may exist in the log already (their batch consumed again after a
   * crash or a rebalance), later ones cannot.
   */
  async sentUpTo(partitionKey: string): Promise<number | undefined> {
    return (await this.progress.findOne({ _id: partitionKey }))?.offset;
  }

  /** Notes, before a batch's deliveries are sent, that they may have been sent up to `offset`. */
  async markSending(partitionKey: string, offset: number): Promise<void> {
    await this.progress.updateOne({ _id: partitionKey }, { $max: { offset } }, { upsert: true });
  }

  /** The status of those deliveries that are in the log: one find per 500 `_id`s (`findByIds`). */
  async statusOf(ids: readonly string[]): Promise<Map<string, DeliveryDoc['status']>> {
    const docs = await findByIds(this.collection, ids, { projection: { status: 1 } });
    return new Map([...docs].map(([id, d]) => [id, d.status]));
  }

  /**
   * The filter of one communication's deliveries: by its key in a keyed log (read from the `_id` index,
   * decision 0066), else by `communicationNumber` (MongoDB's index; FerretDB v1 reads the whole log).
   */
  async communicationFilter(communicationNumber: string): Promise<Filter<StoredDelivery>> {
    return this.byCommunication.filter(this.collection, communicationNumber);
  }

  /** The deliveries of one communication, by `_id` (event id, then endpoint): at most `limit` (the delivery-log API). */
  async ofCommunication(
    businessUnit: string,
    communicationNumber: string,
    limit: number,
  ): Promise<DeliveryDoc[]> {
    const docs = await this.collection
      .find({ ...(await this.communicationFilter(communicationNumber)), businessUnit })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map(deliveryOf);
  }

  /** Every queue entry (lane, due time, attempts), for the dispatcher's view of which lanes wait. */
  async queued(): Promise<QueueEntry[]> {
    return this.queue.find({}, { projection: LANE }).toArray();
  }

  /** The queue entries due by now, earliest first. */
  async due(now: Date, limit: number): Promise<QueueEntry[]> {
    return this.queue
      .find({ nextAttemptAt: { $lte: now } })
      .sort({ nextAttemptAt: 1, _id: 1 })
      .limit(limit)
      .toArray();
  }

  /** How many deliveries are pending (the queue's length). */
  async pendingCount(): Promise<number> {
    return this.queue.countDocuments({});
  }

  /**
   * The queue's length from the store's statistics, for the `callback_queue_pending` gauge (read at every
   * scrape): counting the documents reads every entry on FerretDB v1 (2.5 s at 100,000 entries), its
   * `collStats` counts the table's rows (0.1 s); on MongoDB the collection's metadata.
   */
  async pendingEstimate(): Promise<number> {
    if ((await (this.dialect ??= detectDialect(this.db))) === 'mongodb')
      return this.queue.estimatedDocumentCount();
    const stats = await this.db.command({ collStats: this.queue.collectionName });
    return typeof stats.count === 'number' ? stats.count : this.pendingCount();
  }

  /**
   * Which of these entries wait behind an earlier pending event of the same customer for the same
   * endpoint (order per customer). One query for a round's candidates, not one per candidate.
   */
  async blockedAmong(candidates: readonly QueueEntry[]): Promise<Set<string>> {
    if (candidates.length === 0) return new Set();
    const streamIds = [...new Set(candidates.map((d) => d.streamId))];
    const pending = await this.queue.find({ streamId: { $in: streamIds } }, { projection: LANE }).toArray();
    const earliest = new Map<string, number>();
    for (const p of pending) {
      const lane = `${p.streamId}|${p.endpointId}`;
      earliest.set(lane, Math.min(earliest.get(lane) ?? Infinity, p.streamVersion));
    }
    return new Set(
      candidates
        .filter((d) => (earliest.get(`${d.streamId}|${d.endpointId}`) ?? Infinity) < d.streamVersion)
        .map((d) => d._id),
    );
  }

  /** Claims one due delivery (see claimMany); null when it is not to be sent now. */
  async claim(entry: QueueEntry, now: Date, leaseUntil: Date): Promise<DeliveryDoc | null> {
    return (await this.claimMany([entry], now, leaseUntil))[0] ?? null;
  }

  /**
   * Claims due deliveries for one attempt each and returns those to send (attempts already counted), in
   * the order given; an entry not to be sent now is left out. Only one claimer wins an entry: it must
   * still be due, and the lease moves its due time past the attempt's timeout, so neither another round
   * nor another instance sends it meanwhile. A crash during the attempt lets the lease run out and the
   * delivery is tried again (receivers de-duplicate on ce-id). An entry whose delivery already ended (a
   * crash between the log write and the queue removal) is removed here instead of being sent; a
   * redelivery's entry instead takes the delivery back in the log (status `pending`, a fresh budget) and
   * sends it (decision 0067).
   *
   * In bulk (decision 0072): one conditional `updateMany` that marks what it leases with this claim's
   * token, one read of the entries holding the token, one of their log documents, and one removal of
   * those whose delivery ended: four commands for a dispatch round instead of two or three per delivery.
   */
  async claimMany(entries: readonly QueueEntry[], now: Date, leaseUntil: Date): Promise<DeliveryDoc[]> {
    if (entries.length === 0) return [];
    // On MongoDB each document's conditional update is atomic, so of two claimers only one leaves its
    // token. FerretDB v1 evaluates the condition in Go and then writes by _id, so two concurrent claims of
    // one entry can both pass: claims in this process run one after the other. (Across processes only
    // MongoDB is atomic; the local stack runs one callback service: docs/callbacks.md "Queue".)
    const mine = this.claims.then(() => this.claimAll(entries, now, leaseUntil));
    this.claims = mine.catch(() => undefined);
    return mine;
  }

  private async claimAll(
    entries: readonly QueueEntry[],
    now: Date,
    leaseUntil: Date,
  ): Promise<DeliveryDoc[]> {
    const ids = [...new Set(entries.map((e) => e._id))];
    const claim = randomUUID();
    const { modifiedCount } = await this.queue.updateMany(
      { _id: { $in: ids }, nextAttemptAt: { $lte: now } },
      { $set: { nextAttemptAt: leaseUntil, claim }, $inc: { attempts: 1 } },
    );
    if (modifiedCount === 0) return [];
    const claimed = await this.queue.find({ _id: { $in: ids }, claim }).toArray();
    if (claimed.length === 0) return [];
    const logs = await findByIds(
      this.collection,
      claimed.map((c) => c._id),
    );
    const taken = new Map<string, DeliveryDoc>();
    const ended: string[] = [];
    for (const c of claimed) {
      let d = logs.get(c._id);
      if (d && c.redelivery) {
        try {
          d = await this.takeBack(d, now);
        } catch {
          // Left out of this round, still leased: claimed again once the lease ends.
          continue;
        }
      }
      if (d?.status !== 'pending') ended.push(c._id);
      else taken.set(c._id, { ...deliveryOf(d), attempts: c.attempts, claim });
    }
    // An entry whose delivery ended; if this removal fails, a later claim removes it.
    if (ended.length > 0) await this.queue.deleteMany({ _id: { $in: ended }, claim }).catch(() => undefined);
    return ids.flatMap((id) => {
      const d = taken.get(id);
      return d ? [d] : [];
    });
  }

  /**
   * A redelivery's claim (decision 0067): the log takes the delivery back, with the entry's fresh budget;
   * then the mark goes, so an entry this attempt's end leaves behind (a crash) is removed like any other.
   */
  private async takeBack(d: StoredDelivery, now: Date): Promise<StoredDelivery> {
    let back = d;
    if (d.status !== 'pending') {
      await this.collection.updateOne(
        { _id: d._id },
        { $set: { status: 'pending', attempts: 0, nextAttemptAt: now } },
      );
      back = { ...d, status: 'pending', nextAttemptAt: now };
    }
    await this.queue.updateOne({ _id: d._id }, { $unset: { redelivery: '' } });
    return back;
  }

  /** Records an attempt of a claimed delivery and moves it on (see recordAttempts). */
  async recordAttempt(
    d: DeliveryDoc,
    attempt: DeliveryAttempt,
    next: { status: DeliveryDoc['status']; nextAttemptAt?: Date },
  ): Promise<void> {
    await this.recordAttempts([{ delivery: d, attempt, next }]);
  }

  /**
   * Records attempts of claimed deliveries and moves each on: delivered, dead, or due again later. The
   * log first (one `bulkWrite` of updates by `_id`), then the queue (one `bulkWrite` that removes the
   * ended ones' entries and sets the others' next due times, each only on the entry its claim leased): a
   * crash between them leaves entries that the next claim removes (their delivery ended) or sends again
   * after their lease (decision 0072).
   */
  async recordAttempts(attempts: readonly RecordedAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.collection.bulkWrite(
      attempts.map(({ delivery: d, attempt, next }) => ({
        updateOne: {
          filter: { _id: d._id },
          update: {
            $set: {
              status: next.status,
              attempts: d.attempts,
              ...(next.nextAttemptAt ? { nextAttemptAt: next.nextAttemptAt } : {}),
              ...(next.status === 'delivered' ? { deliveredAt: attempt.at } : {}),
            },
            $push: { log: attempt },
          },
        },
      })),
      { ordered: false },
    );
    // The entry the attempt's claim leased, not one a redelivery wrote meanwhile (its claim is gone).
    const entryOf = (d: DeliveryDoc): Filter<QueueEntry> =>
      d.claim ? { _id: d._id, claim: d.claim } : { _id: d._id };
    const queueWrites: AnyBulkWriteOperation<QueueEntry>[] = attempts.map(({ delivery: d, attempt, next }) =>
      next.status === 'pending'
        ? {
            updateOne: {
              filter: entryOf(d),
              update: { $set: { nextAttemptAt: next.nextAttemptAt ?? attempt.at } },
            },
          }
        : { deleteOne: { filter: entryOf(d) } },
    );
    await this.queue.bulkWrite(queueWrites, { ordered: false });
  }

  /**
   * Puts dead-lettered (or chosen) deliveries back in the queue with a fresh attempt budget: one write per
   * delivery, its queue entry marked as a redelivery (decision 0067). The log takes the delivery back
   * (status `pending`) when the entry is claimed, so no crash leaves a pending delivery without an entry
   * and nothing needs repairing at start.
   */
  async redeliver(filter: RedeliverFilter, now: Date): Promise<number> {
    const q: Record<string, unknown> = filter.communicationNumber
      ? { ...(await this.communicationFilter(filter.communicationNumber)) }
      : {};
    if (filter.eventIds?.length) q.eventId = { $in: filter.eventIds };
    if (filter.businessUnit) q.businessUnit = filter.businessUnit;
    if (filter.deadOnly !== false) q.status = 'dead';
    const chosen = await this.collection.find(q, { projection: LANE }).toArray();
    for (const d of chosen) {
      await this.putInQueue(
        {
          _id: d._id,
          streamId: d.streamId,
          endpointId: d.endpointId,
          streamVersion: d.streamVersion,
          nextAttemptAt: now,
          attempts: 0,
        },
        true,
      );
    }
    return chosen.length;
  }

  /**
   * Gives every pending delivery a queue entry: repairs a crash between the two writes of a redelivery made
   * by a release before decision 0067, and fills the queue of a store written before it existed. Returns
   * how many entries it added. It reads every pending delivery (by the `status` index; on FerretDB v1 since
   * its patch 0008, a scan before), and the service runs it at start on a log from before its keys only: a
   * keyed log (decision 0066) was started by a release whose writes leave no pending delivery without its
   * entry (decision 0067).
   */
  async restoreQueue(): Promise<number> {
    const pending = await this.collection.find({ status: 'pending' }, { projection: LANE }).toArray();
    if (pending.length === 0) return 0;
    const queued = new Set(
      (
        await this.queue
          .find({ _id: { $in: pending.map((d) => d._id) } }, { projection: { _id: 1 } })
          .toArray()
      ).map((e) => e._id),
    );
    let added = 0;
    for (const d of pending) {
      if (queued.has(d._id)) continue;
      await this.putInQueue({
        _id: d._id,
        streamId: d.streamId,
        endpointId: d.endpointId,
        streamVersion: d.streamVersion,
        nextAttemptAt: d.nextAttemptAt,
        attempts: d.attempts,
      });
      added += 1;
    }
    return added;
  }
}
