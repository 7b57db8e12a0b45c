import type { Collection, Db } from 'mongodb';
import { insertNew } from '@crs/store';
import { BackgroundRetry } from './background-retry';
import type { ReservationDoc } from './reservation';

/** The ingress's record of published reservations, in its own database beside `comm_reservations`. */
export const PublishedReservations = 'comm_published';

/** The `_id` of the document that says the reservations made before this record existed were recorded. */
const EARLIER_RECORDED = '#earlier-reservations-recorded';

/** BATCH of the one-time pass over earlier reservations. */
const BATCH = 1000;

interface PublishedDoc {
  _id: string;
  at: Date;
  /** Only on the EARLIER_RECORDED document: how many reservations it recorded. */
  reservations?: number;
}

export interface PublicationRecordOptions {
  retryMs: number;
  retryMaxMs: number;
  /** Told when a write failed; its keys are kept and written again in the background. */
  onRecordFailed?: (err: unknown, pending: number) => void;
}

/**
 * Which communicationNumber reservations had their command acknowledged by Kafka: one document per
 * reservation key, `{ _id: key, at }`, written after the acknowledgement and before the client is
 * answered (docs/decisions/0026). A reservation that is held but not recorded is one whose attempt died
 * between reserving and answering, which decides whether a retry may reclaim it.
 *
 * Writes are unordered `insertMany`s (an `_id` already recorded is skipped), grouped: calls that arrive
 * while a write is in flight go together in the next one. A failed write never fails the request (Kafka
 * holds its command): its keys are kept in memory, count as recorded for this process, and are written
 * again in the background with backoff until the store answers. Separate documents rather than a flag on
 * the reservation: on FerretDB v1 an insert of many documents is one command, while updates are one
 * query each (docs/decisions/0015).
 */
export class PublicationRecord {
  private readonly collection: Collection<PublishedDoc>;
  /** Keys acknowledged by Kafka whose record is not written yet (in flight or failed). */
  private readonly pending = new Set<string>();
  private waiting: { keys: string[]; done: () => void }[] = [];
  private writing = false;
  private readonly retry: BackgroundRetry;

  constructor(
    db: Db,
    private readonly clock: () => Date,
    private readonly options: PublicationRecordOptions,
  ) {
    this.collection = db.collection<PublishedDoc>(PublishedReservations);
    this.retry = new BackgroundRetry(() => this.retryPending(), options.retryMs, options.retryMaxMs);
  }

  /** Acknowledged keys whose record could not be written yet (a gauge for operators). */
  pendingCount(): number {
    return this.pending.size;
  }

  close(): void {
    this.retry.stop();
  }

  /** Records the keys as published; resolves once written, or once kept for the background retry. */
  record(keys: string[]): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    for (const key of keys) this.pending.add(key);
    return new Promise((done) => {
      this.waiting.push({ keys, done });
      void this.flush();
    });
  }

  /** Whether a command with this reservation key was acknowledged by Kafka (as far as the ingress knows). */
  async has(key: string): Promise<boolean> {
    if (this.pending.has(key)) return true;
    return (await this.collection.findOne({ _id: key }, { projection: { _id: 1 } })) !== null;
  }

  /**
   * Once per database: records every reservation made before this record existed as published (their
   * commands cannot be told apart any more, and taking one as used never makes a second effect), so
   * that none of them counts as an orphan. Repeated after an interrupted pass; returns how many it recorded.
   */
  async recordEarlier(reservations: Collection<ReservationDoc>): Promise<number> {
    if ((await this.collection.findOne({ _id: EARLIER_RECORDED })) !== null) return 0;
    const at = this.clock();
    let recorded = 0;
    let batch: PublishedDoc[] = [];
    for await (const r of reservations.find({}, { projection: { _id: 1 } }).batchSize(BATCH)) {
      batch.push({ _id: r._id, at });
      if (batch.length === BATCH) {
        await insertNew(this.collection, batch);
        recorded += batch.length;
        batch = [];
      }
    }
    await insertNew(this.collection, batch);
    recorded += batch.length;
    await insertNew(this.collection, [{ _id: EARLIER_RECORDED, at, reservations: recorded }]);
    return recorded;
  }

  private async flush(): Promise<void> {
    if (this.writing || this.waiting.length === 0) return;
    this.writing = true;
    const group = this.waiting;
    this.waiting = [];
    try {
      await this.write(group.flatMap((g) => g.keys));
    } catch (err) {
      this.options.onRecordFailed?.(err, this.pending.size);
      this.retry.schedule();
    } finally {
      this.writing = false;
      for (const g of group) g.done();
      void this.flush();
    }
  }

  private async write(keys: string[]): Promise<void> {
    const at = this.clock();
    await insertNew(
      this.collection,
      keys.map((key) => ({ _id: key, at })),
    );
    for (const key of keys) this.pending.delete(key);
  }

  private async retryPending(): Promise<{ failed: boolean; more: boolean }> {
    // Keys of a write still in flight may be written twice: the second insert skips them.
    const keys = [...this.pending];
    try {
      await this.write(keys);
      return { failed: false, more: this.pending.size > 0 };
    } catch {
      return { failed: true, more: true };
    }
  }
}
