import { randomUUID } from 'node:crypto';
import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import { OwnedCollections, accountsForEvery } from '@crs/store';
import { streamKey, type DurablePublisher } from '@crs/messaging';
import type { CustomerCommand, CustomerCommandData, CustomerCommandType } from '@crs/contracts';
import { isOrphan } from './reservations/orphan-rule';
import { PublicationRecord } from './reservations/publication-record';
import { reservationKey, type ReservationDoc } from './reservations/reservation';
import { ReservationReleases, type HeldReservation } from './reservations/reservation-releases';

export interface PendingCommand {
  type: CustomerCommandType;
  businessUnit: string;
  customerExtId: string;
  communicationNumber: string;
  data: CustomerCommandData[CustomerCommandType];
  issuedBy: string;
}

export type ReserveOutcome = { ok: true } | { ok: false; reason: 'USED' };

const RESERVED: ReserveOutcome = { ok: true };
const USED: ReserveOutcome = { ok: false, reason: 'USED' };

interface Attempt {
  item: PendingCommand;
  commandId: string;
}

const heldBy = ({ item, commandId }: Attempt): HeldReservation => ({
  key: reservationKey(item.businessUnit, item.communicationNumber),
  commandId,
});

/** What a request of a group reserved: its outcome per item and the attempts to publish. */
interface Reserved {
  outcomes: ReserveOutcome[];
  attempts: Attempt[];
}

/** What a group reserved: per request (null: it failed and is releasing), and every key it holds. */
interface ReservedGroup {
  requests: (Reserved | null)[];
  /** Every reservation key inserted with the group's id (also those of failed requests). */
  keys: string[];
}

/** One submit call waiting for its group. */
interface QueuedSubmit {
  items: PendingCommand[];
  resolve: (outcomes: ReserveOutcome[]) => void;
  reject: (err: unknown) => void;
}

function hasWriteConcernError(err: MongoBulkWriteError): boolean {
  const wce = (err as { writeConcernError?: unknown }).writeConcernError;
  return wce !== undefined && wce !== null;
}

/**
 * What the ingress must answer synchronously: the communicationNumber is reserved under a unique key
 * (unique per business unit across every write endpoint), then the command is published with acks
 * from all in-sync replicas, and the client is answered; the reservation's group is then recorded as
 * published (without holding the answer). If publishing fails the reservation is released, so a retry
 * is possible and nothing was acknowledged that Kafka does not hold.
 *
 * A release can fail too (`ReservationReleases`): a failed release is retried in the background, and a
 * retry that meets a reservation still waiting for release releases it at once and proceeds. A
 * reservation left by an attempt that died before answering is reclaimed by a retry of the same
 * customer once it is old enough and not recorded as published (`isOrphan`, `PublicationRecord`,
 * docs/decisions/0026).
 */
export interface CommandGatewayOptions {
  /** First wait before a failed release (or publication record) is tried again; doubles up to `releaseRetryMaxMs`. */
  releaseRetryMs?: number;
  releaseRetryMaxMs?: number;
  /** Told about each reservation whose release failed and is kept for the background retry. */
  onReleaseFailed?: (err: unknown, pending: number) => void;
  /** Told about each acknowledged reservation whose publication record could not be written yet. */
  onRecordFailed?: (err: unknown, pending: number) => void;
  /**
   * A reservation older than this whose command Kafka never acknowledged (none is recorded as published)
   * is an orphan: its attempt died between reserving and answering (an ingress killed mid-request, whose
   * process forgot what it must release). A retry of the same customer reclaims it instead of getting
   * O001. 0 or unset: never.
   */
  orphanAfterMs?: number;
  /** Told about each orphan a retry reclaimed (its key: business unit and communicationNumber). */
  onReclaimed?: (key: string) => void;
  /**
   * How long a submit that finds the gateway idle waits for others to share its `insertMany` (group
   * commit); 0 = those of the same turn of the event loop. Requests arriving while a group's insert is
   * in flight always wait for it and go together. Default 1 ms.
   */
  groupWindowMs?: number;
  /** Reservations per group at most (a single request larger than this still goes whole). Default 2,000. */
  maxGroupItems?: number;
  /**
   * Applied to a request's reserved commands just before they are published: the ingress encrypts the
   * personal fields of customer records here (docs/privacy.md), so no plaintext reaches Kafka. A failure
   * releases the request's reservations like a failed publish.
   */
  protect?: (items: PendingCommand[]) => Promise<PendingCommand[]>;
}

export class CommandGateway {
  private readonly reservations: Collection<ReservationDoc>;
  private readonly releases: ReservationReleases;
  private readonly published: PublicationRecord;
  private readonly groupWindowMs: number;
  private readonly maxGroupItems: number;
  private readonly queue: QueuedSubmit[] = [];
  private reserving = false;
  private groupScheduled = false;

  constructor(
    db: Db,
    private readonly publisher: DurablePublisher,
    private readonly commandsTopic: string,
    private readonly clock: () => Date,
    private readonly options: CommandGatewayOptions = {},
  ) {
    this.reservations = db.collection<ReservationDoc>(OwnedCollections.reservations);
    const retryMs = options.releaseRetryMs ?? 1000;
    const retryMaxMs = options.releaseRetryMaxMs ?? 30000;
    this.releases = new ReservationReleases(this.reservations, retryMs, retryMaxMs, options.onReleaseFailed);
    this.published = new PublicationRecord(db, clock, {
      retryMs,
      retryMaxMs,
      ...(options.onRecordFailed ? { onRecordFailed: options.onRecordFailed } : {}),
    });
    this.groupWindowMs = options.groupWindowMs ?? 1;
    this.maxGroupItems = options.maxGroupItems ?? 2000;
  }

  /** Reservations whose release failed and is still being retried (a gauge for operators). */
  unreleasedCount(): number {
    return this.releases.count();
  }

  /** Acknowledged reservations whose publication record is still being written (a gauge for operators). */
  unrecordedCount(): number {
    return this.published.pendingCount();
  }

  /** Stops the background retries (shutdown); reservations still held stay in the store. */
  async close(): Promise<void> {
    this.releases.close();
    await this.published.close();
  }

  static key(businessUnit: string, communicationNumber: string): string {
    return reservationKey(businessUnit, communicationNumber);
  }

  async isUsed(businessUnit: string, communicationNumber: string, customerExtId: string): Promise<boolean> {
    // findOne by _id alone: FerretDB v1 pushes that down to SQLite, while countDocuments (an aggregation)
    // reads the whole collection (docs/decisions/0008).
    const key = CommandGateway.key(businessUnit, communicationNumber);
    const doc = await this.reservations.findOne({ _id: key });
    // A reservation waiting for its release belongs to an attempt that was never acknowledged.
    if (doc === null || this.releases.waiting(key) === doc.commandId) return false;
    return !(await this.isOrphan(doc, customerExtId));
  }

  /**
   * Reserves every communicationNumber and publishes the commands of those reserved; returns per item.
   *
   * Group commit: requests submitted while the previous group's insert is in flight (or within
   * `groupWindowMs` of an idle gateway) are reserved together with one unordered `insertMany`
   * (a duplicate key comes back per index as E11000 and gives that item O001), then each request
   * publishes its own commands (the publisher coalesces them into one produce call) and gets its own
   * answer: a request whose publish fails releases exactly its own reservations.
   */
  submit(items: PendingCommand[]): Promise<ReserveOutcome[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ items, resolve, reject });
      this.scheduleGroup();
    });
  }

  private scheduleGroup(): void {
    if (this.reserving || this.groupScheduled || this.queue.length === 0) return;
    this.groupScheduled = true;
    const run = () => {
      this.groupScheduled = false;
      void this.runGroup();
    };
    if (this.groupWindowMs > 0) setTimeout(run, this.groupWindowMs);
    else setImmediate(run);
  }

  /** Takes whole requests off the queue up to `maxGroupItems` reservations (at least one request). */
  private async runGroup(): Promise<void> {
    const group: QueuedSubmit[] = [];
    let size = 0;
    while (
      this.queue.length > 0 &&
      (group.length === 0 || size + this.queue[0]!.items.length <= this.maxGroupItems)
    ) {
      const next = this.queue.shift()!;
      group.push(next);
      size += next.items.length;
    }
    if (group.length === 0) return;
    this.reserving = true;
    // Every reservation of the group carries its id; the publication record is written per group.
    const groupId = randomUUID();
    let reserved: (Reserved | null)[];
    let groupKeys: string[];
    try {
      ({ requests: reserved, keys: groupKeys } = await this.reserveGroup(group, groupId));
    } catch (err) {
      for (const request of group) request.reject(err);
      return;
    } finally {
      this.reserving = false;
      this.scheduleGroup();
    }
    // The whole group's records are protected at once (one key-store round trip for its new customers).
    if (this.options.protect) {
      const attempts = reserved.flatMap((r) => r?.attempts ?? []);
      try {
        const items = await this.options.protect(attempts.map((a) => a.item));
        attempts.forEach((a, i) => (a.item = items[i]!));
      } catch (err) {
        await Promise.all(
          group.map((request, i) => {
            const mine = reserved[i];
            return mine
              ? this.releases.release(mine.attempts.map(heldBy)).finally(() => request.reject(err))
              : undefined;
          }),
        );
        return;
      }
    }
    // Publishing overlaps the next group's reservations.
    const acknowledged = await Promise.all(
      group.map((request, i) => {
        const mine = reserved[i];
        return mine ? this.publishRequest(request, mine) : false;
      }),
    );
    // One document per group: the keys of the group whose command was not acknowledged are listed in it.
    // Known to this process at once; written to the store without holding the answers (a store round
    // trip less per request; decision 0026): an ingress that dies before the write leaves the group
    // unrecorded, the crash window after Kafka's acknowledgement, where a retry's repeat is ignored by
    // the decider. The record never fails a request: Kafka holds the commands.
    const published = new Set<string>();
    reserved.forEach((mine, i) => {
      if (mine && acknowledged[i]) for (const a of mine.attempts) published.add(heldBy(a).key);
    });
    this.published.record(
      groupId,
      published.size,
      groupKeys.filter((key) => !published.has(key)),
    );
  }

  /**
   * One `insertMany` for every item of the group; E11000 items go through the slow path (a reservation
   * of ours waiting for release, an orphan). A request with any other failure releases what it reserved
   * and is rejected (`null` in the result); the others get their outcomes and reserved attempts.
   */
  private async reserveGroup(group: QueuedSubmit[], groupId: string): Promise<ReservedGroup> {
    const now = this.clock();
    const docs: ReservationDoc[] = [];
    const attempts: Attempt[] = [];
    const owner: number[] = []; // doc index → request index
    group.forEach((request, r) => {
      for (const item of request.items) {
        const commandId = randomUUID();
        attempts.push({ item, commandId });
        docs.push({
          _id: CommandGateway.key(item.businessUnit, item.communicationNumber),
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
          if (we.code === 11000) duplicates.push(we.index);
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
        if ((err as { code?: number }).code === 11000) used.add(index);
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
   * Publishes a request's commands and answers it; true when Kafka acknowledged them (the caller then
   * records the group), false when the publish failed (its reservations are released and it is rejected).
   */
  private async publishRequest(
    request: QueuedSubmit,
    { outcomes, attempts: reserved }: Reserved,
  ): Promise<boolean> {
    if (reserved.length === 0) {
      request.resolve(outcomes);
      return true;
    }
    const issuedAt = this.clock().toISOString();
    try {
      await this.publisher.publish(
        reserved.map(({ item, commandId }) => {
          const streamId = streamKey(item.businessUnit, item.customerExtId);
          const command = {
            commandId,
            type: item.type,
            streamId,
            issuedAt,
            correlationId: item.communicationNumber,
            businessUnit: item.businessUnit,
            customerExtId: item.customerExtId,
            issuedBy: item.issuedBy,
            data: item.data,
          } as CustomerCommand;
          return { topic: this.commandsTopic, key: streamId, type: item.type, value: command };
        }),
      );
    } catch (err) {
      await this.releases.release(reserved.map(heldBy));
      request.reject(err);
      return false;
    }
    request.resolve(outcomes);
    return true;
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
  /** Publishes a command that needs no communicationNumber reservation (overrides, re-evaluations). */
  async publishOnly(item: PendingCommand): Promise<string> {
    const commandId = randomUUID();
    const streamId = streamKey(item.businessUnit, item.customerExtId);
    await this.publisher.publish([
      {
        topic: this.commandsTopic,
        key: streamId,
        type: item.type,
        value: {
          commandId,
          type: item.type,
          streamId,
          issuedAt: this.clock().toISOString(),
          correlationId: item.communicationNumber,
          businessUnit: item.businessUnit,
          customerExtId: item.customerExtId,
          issuedBy: item.issuedBy,
          data: item.data,
        },
      },
    ]);
    return commandId;
  }
}
