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
 */
export class CommandGateway {
  private readonly reservations: Collection<ReservationDoc>;

  constructor(
    db: Db,
    private readonly publisher: DurablePublisher,
    private readonly commandsTopic: string,
    private readonly clock: () => Date,
  ) {
    this.reservations = db.collection<ReservationDoc>(OwnedCollections.reservations);
  }

  static key(businessUnit: string, communicationNumber: string): string {
    // A separator that cannot occur in a JSON string key collision: lengths are prefixed.
    return `${businessUnit.length}:${businessUnit}:${communicationNumber}`;
  }

  async isUsed(businessUnit: string, communicationNumber: string): Promise<boolean> {
    // findOne by _id alone: FerretDB v1 pushes that down to SQLite, while countDocuments (an aggregation)
    // reads the whole collection (docs/decisions/0008).
    const key = CommandGateway.key(businessUnit, communicationNumber);
    return (await this.reservations.findOne({ _id: key }, { projection: { _id: 1 } })) !== null;
  }

  /** Reserves every communicationNumber and publishes the commands of those reserved; returns per item. */
  async submit(items: PendingCommand[]): Promise<ReserveOutcome[]> {
    const outcomes: ReserveOutcome[] = [];
    const reserved: { item: PendingCommand; commandId: string }[] = [];
    for (const item of items) {
      const commandId = randomUUID();
      try {
        await this.reservations.insertOne({
          _id: CommandGateway.key(item.businessUnit, item.communicationNumber),
          businessUnit: item.businessUnit,
          communicationNumber: item.communicationNumber,
          customerExtId: item.customerExtId,
          reservedAt: this.clock(),
          commandId,
        });
        reserved.push({ item, commandId });
        outcomes.push({ ok: true });
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) {
          await this.release(reserved.map((r) => r.item));
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
      await this.release(reserved.map((r) => r.item));
      throw err;
    }
    return outcomes;
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

  private async release(items: PendingCommand[]): Promise<void> {
    if (items.length === 0) return;
    await this.reservations
      .deleteMany({ _id: { $in: items.map((i) => CommandGateway.key(i.businessUnit, i.communicationNumber)) } })
      .catch(() => undefined);
  }
}
