import type { Collection, Db } from 'mongodb';
import { OwnedCollections } from '@crs/store';
import type { CloudEvent } from '@crs/contracts';

export interface DeliveryAttempt {
  at: Date;
  status: number | null;
  ms: number;
  error?: string;
}

export interface DeliveryDoc {
  _id: string;
  eventId: string;
  endpointId: string;
  url: string;
  businessUnit: string;
  communicationNumber: string;
  customerExtId: string;
  streamId: string;
  streamVersion: number;
  cloudEvent: CloudEvent;
  status: 'pending' | 'delivered' | 'dead';
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
  deliveredAt?: Date;
  log: DeliveryAttempt[];
}

/**
 * The scheduled delivery queue and the delivery log in one collection: one document per event and
 * endpoint, created once (redelivered events do not create a second one), updated per attempt.
 */
export class DeliveryStore {
  readonly collection: Collection<DeliveryDoc>;

  constructor(db: Db) {
    this.collection = db.collection<DeliveryDoc>(OwnedCollections.deliveries);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ status: 1, nextAttemptAt: 1 });
    await this.collection.createIndex({ streamId: 1, endpointId: 1, streamVersion: 1 });
    await this.collection.createIndex({ businessUnit: 1, communicationNumber: 1 });
  }

  async enqueue(doc: Omit<DeliveryDoc, 'status' | 'attempts' | 'log' | 'createdAt'>, now: Date): Promise<void> {
    try {
      await this.collection.insertOne({ ...doc, status: 'pending', attempts: 0, log: [], createdAt: now });
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
    }
  }

  async due(now: Date, limit: number): Promise<DeliveryDoc[]> {
    return this.collection.find({ status: 'pending', nextAttemptAt: { $lte: now } }).sort({ nextAttemptAt: 1 }).limit(limit).toArray();
  }

  /**
   * Which of these deliveries wait behind an earlier pending event of the same customer for the same
   * endpoint (order per customer). One query per dispatch round, not one per candidate: FerretDB v1
   * (SQLite) scans the collection for such a query, and a scan per candidate starved the whole store
   * on 2 cores.
   */
  async blockedAmong(candidates: readonly DeliveryDoc[]): Promise<Set<string>> {
    if (candidates.length === 0) return new Set();
    const streamIds = [...new Set(candidates.map((d) => d.streamId))];
    const pending = await this.collection
      .find(
        { status: 'pending', streamId: { $in: streamIds } },
        { projection: { streamId: 1, endpointId: 1, streamVersion: 1 } },
      )
      .toArray();
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

  /**
   * Claims a due delivery for one attempt: only one claimer wins (the document must still be pending
   * with the attempt count it was read with), and the lease pushes nextAttemptAt past the attempt's
   * timeout, so neither another round nor another instance sends it meanwhile. A crash during the
   * attempt lets the lease expire and the delivery is tried again (receivers de-duplicate on ce-id).
   */
  async claim(d: DeliveryDoc, leaseUntil: Date): Promise<boolean> {
    const r = await this.collection.updateOne(
      { _id: d._id, status: 'pending', attempts: d.attempts },
      { $set: { attempts: d.attempts + 1, nextAttemptAt: leaseUntil } },
    );
    return r.modifiedCount === 1;
  }

  async recordAttempt(d: DeliveryDoc, attempt: DeliveryAttempt, next: { status: DeliveryDoc['status']; nextAttemptAt?: Date }): Promise<void> {
    await this.collection.updateOne(
      { _id: d._id },
      {
        $set: {
          status: next.status,
          ...(next.nextAttemptAt ? { nextAttemptAt: next.nextAttemptAt } : {}),
          ...(next.status === 'delivered' ? { deliveredAt: attempt.at } : {}),
        },
        $push: { log: attempt },
      },
    );
  }

  /** Puts dead-lettered (or chosen) deliveries back in the queue with a fresh attempt budget. */
  async redeliver(filter: { eventIds?: string[]; businessUnit?: string; communicationNumber?: string; deadOnly?: boolean }, now: Date): Promise<number> {
    const q: Record<string, unknown> = {};
    if (filter.eventIds?.length) q.eventId = { $in: filter.eventIds };
    if (filter.businessUnit) q.businessUnit = filter.businessUnit;
    if (filter.communicationNumber) q.communicationNumber = filter.communicationNumber;
    if (filter.deadOnly !== false) q.status = 'dead';
    const r = await this.collection.updateMany(q, { $set: { status: 'pending', attempts: 0, nextAttemptAt: now } });
    return r.modifiedCount;
  }
}
