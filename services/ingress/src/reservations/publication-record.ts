import { GroupFlusher } from '@crs/runtime';
import type { Collection, Db } from 'mongodb';
import { insertNew } from '@crs/store';
import { BackgroundRetry } from './background-retry';
import type { ReservationDoc } from './reservation';

/** The ingress's record of published reservation groups, in its own database beside `comm_reservations`. */
export const PublishedReservations = 'comm_published';

/**
 * One group of reservations (one `insertMany` of the gateway) whose commands Kafka acknowledged: the
 * keys of the group that were NOT acknowledged are listed (a request whose publish failed; usually none).
 */
export interface PublishedGroupDoc {
  /** The group id every reservation of the group carries (`ReservationDoc.group`). */
  _id: string;
  at: Date;
  /** How many reservations of the group were acknowledged (for operators). */
  acknowledged: number;
  /** Reservation keys of the group whose command was not acknowledged. */
  unpublished: string[];
}

export interface PublicationRecordOptions {
  retryMs: number;
  retryMaxMs: number;
  /**
   * How long a group waits for others before its record is written (default 0: at once). Nobody waits
   * for the record, so under light load a linger turns a write per request into one per interval.
   */
  lingerMs?: number;
  /** Told when a write failed; its groups are kept and written again in the background. */
  onRecordFailed?: (err: unknown, pending: number) => void;
}

interface PendingGroup {
  doc: PublishedGroupDoc;
  unpublished: Set<string>;
}

/**
 * Which communicationNumber reservations had their command acknowledged by Kafka (docs/decisions/0026),
 * recorded per group of reservations rather than per reservation: every reservation carries the id of
 * the group it was inserted with, and once the group's requests are published (before any of them is
 * answered) one document `{ _id: group, unpublished: [...] }` says which of its keys were not
 * acknowledged. A batch of 1,000 customers costs one document instead of 1,000 (the accept path's
 * store writes per customer: one reservation, no record). A reservation held but not covered by its
 * group's record is one whose attempt died between reserving and answering, which decides whether a
 * retry may reclaim it. A reservation without a group was made before this record existed: it counts as
 * published (taking an earlier number as used never makes a second effect).
 *
 * Writes are unordered `insertMany`s (a group already recorded is skipped), grouped: calls that arrive
 * while a write is in flight or within `lingerMs` of the first go together in the next one. A failed write never fails the requests
 * (Kafka holds their commands): the groups are kept in memory, count as recorded for this process, and
 * are written again in the background with backoff until the store answers.
 */
export class PublicationRecord {
  private readonly collection: Collection<PublishedGroupDoc>;
  /** Groups acknowledged by Kafka whose record is not written yet (in flight or failed). */
  private readonly pending = new Map<string, PendingGroup>();
  /** Groups waiting for the next grouped write. */
  private queued: PendingGroup[] = [];
  private readonly flusher: GroupFlusher;
  private readonly retry: BackgroundRetry;

  constructor(
    db: Db,
    private readonly clock: () => Date,
    private readonly options: PublicationRecordOptions,
  ) {
    this.collection = db.collection<PublishedGroupDoc>(PublishedReservations);
    this.retry = new BackgroundRetry(() => this.retryPending(), options.retryMs, options.retryMaxMs);
    this.flusher = new GroupFlusher({
      lingerMs: options.lingerMs ?? 0,
      pending: () => this.queued.length > 0,
      run: () => this.flush(),
    });
  }

  /** Acknowledged reservations whose record could not be written yet (a gauge for operators). */
  pendingCount(): number {
    let n = 0;
    for (const g of this.pending.values()) n += g.doc.acknowledged;
    return n;
  }

  /**
   * Shutdown: waits for the write in flight and writes what is still pending once more (best effort: a
   * group left unwritten is the crash window of decision 0026), then stops retrying.
   */
  async close(): Promise<void> {
    this.retry.stop();
    await this.flusher.stop();
    await this.write([...this.pending.values()]).catch(() => undefined);
  }

  /**
   * Records a group as published, but for the keys in `unpublished`: at once in this process (`has`),
   * in the store by the next grouped write, or by the background retry if that fails. Nobody waits for
   * it (decision 0026). A group with nothing acknowledged needs no record (none is published).
   */
  record(group: string, acknowledged: number, unpublished: string[]): void {
    if (acknowledged === 0) return;
    const pending: PendingGroup = {
      doc: { _id: group, at: this.clock(), acknowledged, unpublished },
      unpublished: new Set(unpublished),
    };
    this.pending.set(group, pending);
    this.queued.push(pending);
    this.flusher.request();
  }

  /** Whether the command of a held reservation was acknowledged by Kafka (as far as the ingress knows). */
  async has(held: Pick<ReservationDoc, '_id' | 'group'>): Promise<boolean> {
    if (held.group === undefined) return true;
    const pending = this.pending.get(held.group);
    if (pending) return !pending.unpublished.has(held._id);
    const doc = await this.collection.findOne({ _id: held.group });
    return doc !== null && !doc.unpublished.includes(held._id);
  }

  private async flush(): Promise<void> {
    const groups = this.queued;
    this.queued = [];
    try {
      await this.write(groups);
    } catch (err) {
      this.options.onRecordFailed?.(err, this.pendingCount());
      this.retry.schedule();
    }
  }

  private async write(groups: PendingGroup[]): Promise<void> {
    if (groups.length === 0) return;
    // E11000: the group is recorded already (a background retry racing a write in flight).
    await insertNew(
      this.collection,
      groups.map((g) => g.doc),
    );
    for (const g of groups) this.pending.delete(g.doc._id);
  }

  private async retryPending(): Promise<{ failed: boolean; more: boolean }> {
    try {
      await this.write([...this.pending.values()]);
      return { failed: false, more: this.pending.size > 0 };
    } catch {
      return { failed: true, more: true };
    }
  }
}
