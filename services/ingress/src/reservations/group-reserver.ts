import { randomUUID } from 'node:crypto';
import { MongoBulkWriteError, type Collection } from 'mongodb';
import { DUPLICATE_KEY, accountsForEvery, findByIds, isDuplicateKey } from '@crs/store';
import type { PendingCommand } from '../pending-command';
import { isOrphan } from './orphan-rule';
import type { PublicationRecord } from './publication-record';
import { reservationKey, type ReservationDoc } from './reservation';
import type { HeldReservation, ReservationReleases } from './reservation-releases';

/** A number to check: its business unit, the number, and the customer a retry would be for. */
export interface UsedQuery {
  businessUnit: string;
  communicationNumber: string;
  customerExtId: string;
}

export type ReserveOutcome = { ok: true } | { ok: false; reason: 'USED' };

const RESERVED: ReserveOutcome = { ok: true };
const USED: ReserveOutcome = { ok: false, reason: 'USED' };

/** A reserved item and the commandId its command carries. */
export interface Attempt {
  item: PendingCommand;
  commandId: string;
}

export const heldBy = ({ item, commandId }: Attempt): HeldReservation => ({
  key: reservationKey(item.businessUnit, item.communicationNumber),
  commandId,
});

/** What a request of a group reserved: its outcome per item and the attempts to publish. */
export interface Reserved {
  outcomes: ReserveOutcome[];
  attempts: Attempt[];
}

/** What a group reserved: per request (null: it failed and is releasing), and every key it holds. */
export interface ReservedGroup {
  requests: (Reserved | null)[];
  /** Every reservation key inserted with the group's id (also those of failed requests). */
  keys: string[];
}

/** A request of a group: its items, and how it is told that it failed. */
export interface GroupRequest {
  items: PendingCommand[];
  reject: (err: unknown) => void;
}

export interface GroupReserverOptions {
  /** A reservation older than this whose command Kafka never acknowledged is an orphan; 0 or unset: never. */
  orphanAfterMs?: number | undefined;
  /** Told about each orphan a retry reclaimed (its key: business unit and communicationNumber). */
  onReclaimed?: ((key: string) => void) | undefined;
}

function hasWriteConcernError(err: MongoBulkWriteError): boolean {
  const wce = (err as { writeConcernError?: unknown }).writeConcernError;
  return wce !== undefined && wce !== null;
}

/**
 * The communicationNumber reservations of a group of requests, in `comm_reservations`: one unordered
 * `insertMany` per group, whose duplicates (E11000) are used numbers unless a retry may take them over (a
 * reservation of ours waiting for its release, an orphan: `isOrphan`, docs/decisions/0026).
 */
export class GroupReserver {
  constructor(
    private readonly reservations: Collection<ReservationDoc>,
    private readonly releases: ReservationReleases,
    private readonly published: PublicationRecord,
    private readonly clock: () => Date,
    private readonly options: GroupReserverOptions,
  ) {}

  async isUsed(businessUnit: string, communicationNumber: string, customerExtId: string): Promise<boolean> {
    return (await this.usedAmong([{ businessUnit, communicationNumber, customerExtId }]))[0]!;
  }

  /**
   * Whether each number is taken (validate-batch-customers), read by `_id` list (`findByIds`: decision
   * 0032). A reservation waiting for its release belongs to an attempt that was never acknowledged; an
   * orphan may be reused.
   */
  async usedAmong(items: readonly UsedQuery[]): Promise<boolean[]> {
    const keys = items.map((i) => reservationKey(i.businessUnit, i.communicationNumber));
    const held = await findByIds(this.reservations, keys);
    return Promise.all(
      items.map(async (item, i) => {
        const doc = held.get(keys[i]!);
        if (doc === undefined || this.releases.isWaiting(keys[i]!, doc.commandId)) return false;
        return !(await this.isOrphan(doc, item.customerExtId));
      }),
    );
  }

  /**
   * One `insertMany` for every item of the group; E11000 items go through the slow path (a reservation
   * of ours waiting for release, an orphan). A request with any other failure releases what it reserved
   * and is rejected (`null` in the result); the others get their outcomes and reserved attempts.
   */
  async reserve(group: readonly GroupRequest[], groupId: string): Promise<ReservedGroup> {
    const now = this.clock();
    const docs: ReservationDoc[] = [];
    const attempts: Attempt[] = [];
    const owner: number[] = []; // doc index → request index
    group.forEach((request, r) => {
      for (const item of request.items) {
        const commandId = randomUUID();
        attempts.push({ item, commandId });
        docs.push({
          _id: reservationKey(item.businessUnit, item.communicationNumber),
          businessUnit: item.businessUnit,
          communicationNumber: item.communicationNumber,
          customerExtId: item.customerExtId,
          reservedAt: now,
          commandId,
          group: groupId,
        });
        owner.push(r);
      }
    });
    const duplicates: number[] = [];
    const failed = new Map<number, unknown>(); // request → its error
    try {
      await this.reservations.insertMany(docs, { ordered: false });
    } catch (err) {
      const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
      if (
        !(err instanceof MongoBulkWriteError) ||
        !Array.isArray(writeErrors) ||
        hasWriteConcernError(err) ||
        // A connection lost mid-command: a bulk error whose write errors do not cover what was not inserted.
        !accountsForEvery(err, docs.length, writeErrors.length)
      ) {
        // Nothing says which documents were stored: every request of the group fails and releases all.
        for (let r = 0; r < group.length; r += 1) failed.set(r, err);
      } else {
        for (const we of writeErrors as { index: number; code?: number }[]) {
          if (we.code === DUPLICATE_KEY) duplicates.push(we.index);
          else failed.set(owner[we.index]!, err);
        }
      }
    }
    const used = new Set<number>(); // indexes into docs
    for (const index of duplicates.sort((a, b) => a - b)) {
      const request = owner[index]!;
      if (failed.has(request)) continue;
      try {
        if (!(await this.retryDuplicate(docs[index]!))) used.add(index);
      } catch (err) {
        if (isDuplicateKey(err)) used.add(index);
        else failed.set(request, err);
      }
    }
    const result: (Reserved | null)[] = [];
    let base = 0;
    for (let r = 0; r < group.length; r += 1) {
      const request = group[r]!;
      const n = request.items.length;
      const indexes = Array.from({ length: n }, (_, i) => base + i);
      base += n;
      const mine = indexes.filter((i) => !used.has(i)).map((i) => attempts[i]!);
      if (failed.has(r)) {
        // The insert may have reached the store although the driver reported an error: release it too.
        result.push(null);
        void this.releases.release(mine.map(heldBy)).finally(() => request.reject(failed.get(r)));
        continue;
      }
      result.push({ outcomes: indexes.map((i) => (used.has(i) ? USED : RESERVED)), attempts: mine });
    }
    return { requests: result, keys: docs.filter((_, i) => !used.has(i)).map((d) => d._id) };
  }

  /**
   * A reservation insert that met E11000: a duplicate left by one of our own failed releases is
   * released and the insert repeated, and so is an orphan; true when the item is now reserved.
   */
  private async retryDuplicate(doc: ReservationDoc): Promise<boolean> {
    if (
      !(await this.releases.releaseWaiting(doc._id)) &&
      !(await this.reclaimOrphan(doc._id, doc.customerExtId))
    )
      return false;
    await this.reservations.insertOne(doc);
    return true;
  }

  /**
   * An orphan, for a retry of `customerExtId` (`isOrphan`): reserved for that same customer, old enough
   * that its attempt cannot still be publishing, and not recorded as published. If its command did reach
   * Kafka after all (the attempt died between the acknowledgement and the record), the retry's command
   * repeats the communicationNumber for the same customer, which the decider ignores: no effect happens
   * twice, and another customer never gets the number (docs/decisions/0026).
   */
  private isOrphan(held: ReservationDoc, customerExtId: string): Promise<boolean> {
    return isOrphan(held, { customerExtId, now: this.clock() }, this.options.orphanAfterMs, () =>
      this.published.has(held),
    );
  }

  /** Removes an orphan reservation of `key`; false when the reservation is not one (O001 stands). */
  private async reclaimOrphan(key: string, customerExtId: string): Promise<boolean> {
    // Without an orphan policy an existing reservation always stands: no read needed.
    if (!this.options.orphanAfterMs) return false;
    const held = await this.reservations.findOne({ _id: key });
    if (held === null) return true; // released in the meantime
    if (!(await this.isOrphan(held, customerExtId))) return false;
    // Only that reservation: a concurrent retry may have reclaimed it and reserved anew.
    await this.reservations.deleteOne({ _id: key, commandId: held.commandId });
    this.options.onReclaimed?.(key);
    return true;
  }
}
