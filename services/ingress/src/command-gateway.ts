import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { OwnedCollections } from '@crs/store';
import { streamKey, type DurablePublisher } from '@crs/messaging';
import type { CustomerCommand, CustomerCommandData, CustomerCommandType } from '@crs/contracts';

interface ReservationDoc {
  _id: string;
  businessUnit: string;
  communicationNumber: string;
  customerExtId: string;
  reservedAt: Date;
  commandId: string;
}

export interface PendingCommand {
  type: CustomerCommandType;
  businessUnit: string;
  customerExtId: string;
  communicationNumber: string;
  data: CustomerCommandData[CustomerCommandType];
  issuedBy: string;
}

export type ReserveOutcome = { ok: true } | { ok: false; reason: 'USED' };

/**
 * What the ingress must answer synchronously: the communicationNumber is reserved under a unique key
 * (unique per business unit across every write endpoint), then the command is published with acks
 * from all in-sync replicas. If publishing fails the reservation is released, so a retry is possible
 * and nothing was acknowledged that Kafka does not hold.
 *
 * A release can fail too: the store may be down at that moment, or the reservation insert may have
 * reached the store although the driver reported an error. Such a reservation would refuse the
 * client's retry with O001 for a request we never acknowledged. So a failed release is remembered and
 * retried in the background with backoff until the store answers, and a retry that meets a
 * reservation still waiting for release releases it at once and proceeds. Only a reservation carrying
 * this attempt's commandId is deleted (read by `_id`, then deleted by `_id`: docs/decisions/0008).
 */
export interface CommandGatewayOptions {
  /** First wait before a failed release is tried again; doubles up to `releaseRetryMaxMs`. */
  releaseRetryMs?: number;
  releaseRetryMaxMs?: number;
  /** Told about each reservation whose release failed and is kept for the background retry. */
  onReleaseFailed?: (err: unknown, pending: number) => void;
  /**
   * A reservation older than this whose communicationNumber is on no event is an orphan: its attempt died
   * between reserving and answering (an ingress killed mid-request, whose process forgot what it must
   * release). A retry of the same customer reclaims it instead of getting O001. 0 or unset: never (then
   * `used` is not needed).
   */
  orphanAfterMs?: number;
  /**
   * Whether any event in the log's projection carries this communicationNumber of the business unit: a
   * request that reached the decider (applied, rejected or a repeat of another) leaves one.
   */
  used?: (businessUnit: string, communicationNumber: string) => Promise<boolean>;
  /** Told about each orphan a retry reclaimed (its key: business unit and communicationNumber). */
  onReclaimed?: (key: string) => void;
}

export class CommandGateway {
  private readonly reservations: Collection<ReservationDoc>;
  /** Reservations this process must still release: key → the commandId of the failed attempt. */
  private readonly unreleased = new Map<string, string>();
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs: number;
  private readonly releaseRetryMs: number;
  private readonly releaseRetryMaxMs: number;

  constructor(
    db: Db,
    private readonly publisher: DurablePublisher,
    private readonly commandsTopic: string,
    private readonly clock: () => Date,
    private readonly options: CommandGatewayOptions = {},
  ) {
    this.reservations = db.collection<ReservationDoc>(OwnedCollections.reservations);
    this.releaseRetryMs = options.releaseRetryMs ?? 1000;
    this.releaseRetryMaxMs = options.releaseRetryMaxMs ?? 30000;
    this.retryDelayMs = this.releaseRetryMs;
  }

  /** Reservations whose release failed and is still being retried (a gauge for operators). */
  unreleasedCount(): number {
    return this.unreleased.size;
  }

  /** Stops the background release retry (shutdown); reservations still held stay in the store. */
  close(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  static key(businessUnit: string, communicationNumber: string): string {
    // A separator that cannot occur in a JSON string key collision: lengths are prefixed.
    return `${businessUnit.length}:${businessUnit}:${communicationNumber}`;
  }

  async isUsed(businessUnit: string, communicationNumber: string, customerExtId: string): Promise<boolean> {
    // findOne by _id alone: FerretDB v1 pushes that down to SQLite, while countDocuments (an aggregation)
    // reads the whole collection (docs/decisions/0008).
    const key = CommandGateway.key(businessUnit, communicationNumber);
    const doc = await this.reservations.findOne({ _id: key });
    // A reservation waiting for its release belongs to an attempt that was never acknowledged.
    if (doc === null || this.unreleased.get(key) === doc.commandId) return false;
    return !(await this.isOrphan(doc, customerExtId));
  }

  /** Reserves every communicationNumber and publishes the commands of those reserved; returns per item. */
  async submit(items: PendingCommand[]): Promise<ReserveOutcome[]> {
    const outcomes: ReserveOutcome[] = [];
    const reserved: { item: PendingCommand; commandId: string }[] = [];
    for (const item of items) {
      const commandId = randomUUID();
      try {
        await this.reserve(item, commandId);
        reserved.push({ item, commandId });
        outcomes.push({ ok: true });
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) {
          // The insert may have reached the store although the driver reported an error: release it too.
          await this.release([...reserved, { item, commandId }]);
          throw err;
        }
        outcomes.push({ ok: false, reason: 'USED' });
      }
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
      await this.release(reserved);
      throw err;
    }
    return outcomes;
  }

  /** Inserts the reservation; a duplicate left by one of our own failed releases is released first. */
  private async reserve(item: PendingCommand, commandId: string): Promise<void> {
    const doc: ReservationDoc = {
      _id: CommandGateway.key(item.businessUnit, item.communicationNumber),
      businessUnit: item.businessUnit,
      communicationNumber: item.communicationNumber,
      customerExtId: item.customerExtId,
      reservedAt: this.clock(),
      commandId,
    };
    try {
      await this.reservations.insertOne(doc);
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const stale = this.unreleased.get(doc._id);
      if (stale !== undefined) {
        await this.releaseOne(doc._id, stale);
        this.unreleased.delete(doc._id);
      } else if (!(await this.reclaimOrphan(doc._id, item.customerExtId))) {
        throw err;
      }
      await this.reservations.insertOne(doc);
    }
  }

  /**
   * An orphan, for a retry of `customerExtId` ({@link CommandGatewayOptions.orphanAfterMs}): reserved for
   * that same customer, old enough that its attempt cannot still be publishing, and no event in the log
   * carries its communicationNumber. If its command did reach the log after all (the decider or projector
   * behind by more than the age), the retry's command repeats the communicationNumber for the same
   * customer, which the decider ignores (and the events then make the number used for good): no effect
   * happens twice, and another customer never gets the number.
   */
  private async isOrphan(held: ReservationDoc, customerExtId: string): Promise<boolean> {
    const { orphanAfterMs, used } = this.options;
    if (!orphanAfterMs || !used || held.customerExtId !== customerExtId) return false;
    if (this.clock().getTime() - new Date(held.reservedAt).getTime() < orphanAfterMs) return false;
    return !(await used(held.businessUnit, held.communicationNumber));
  }

  /** Removes an orphan reservation of `key`; false when the reservation is not one (O001 stands). */
  private async reclaimOrphan(key: string, customerExtId: string): Promise<boolean> {
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

  private async release(attempts: { item: PendingCommand; commandId: string }[]): Promise<void> {
    for (const { item, commandId } of attempts) {
      const key = CommandGateway.key(item.businessUnit, item.communicationNumber);
      try {
        await this.releaseOne(key, commandId);
      } catch (err) {
        this.unreleased.set(key, commandId);
        this.options.onReleaseFailed?.(err, this.unreleased.size);
        this.scheduleRetry();
      }
    }
  }

  /** Deletes the reservation only if it is still this attempt's. */
  private async releaseOne(key: string, commandId: string): Promise<void> {
    const doc = await this.reservations.findOne({ _id: key }, { projection: { commandId: 1 } });
    // The filter names the command too: another attempt may have taken the key over in between.
    if (doc?.commandId === commandId) await this.reservations.deleteOne({ _id: key, commandId });
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => void this.retryReleases(), this.retryDelayMs);
    this.retryTimer.unref();
  }

  private async retryReleases(): Promise<void> {
    this.retryTimer = undefined;
    let failed = false;
    for (const [key, commandId] of [...this.unreleased]) {
      try {
        await this.releaseOne(key, commandId);
        // A concurrent retry may have released it and reserved the key anew in the meantime.
        if (this.unreleased.get(key) === commandId) this.unreleased.delete(key);
      } catch {
        failed = true;
        break;
      }
    }
    this.retryDelayMs = failed
      ? Math.min(this.retryDelayMs * 2, this.releaseRetryMaxMs)
      : this.releaseRetryMs;
    if (this.unreleased.size > 0) this.scheduleRetry();
  }
}
