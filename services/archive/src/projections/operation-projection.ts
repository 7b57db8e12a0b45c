import type { Db } from 'mongodb';
import type { OperationTopicEvent } from '@crs/contracts';
import { isDuplicateKey, type AlertDoc, type OperationDoc } from '@crs/store';

/** Where the two read models of this service live (names resolved through the ProjectionCatalog). */
export interface OperationCollections {
  operations: string;
  alerts: string;
}

/**
 * Applies operation events to MongoDB idempotently: operation documents only move forward by stream
 * version (an upsert that collides on _id with a newer document means "already applied"), alerts are
 * keyed by their event id. Only operations FerretDB v1 supports are used.
 */
export async function applyOperationEvent(
  db: Db,
  names: OperationCollections,
  event: OperationTopicEvent,
): Promise<void> {
  switch (event.type) {
    case 'OperationRegistered': {
      const op = event.data.operation;
      try {
        await db.collection<OperationDoc>(names.operations).updateOne(
          { _id: event.streamId, version: { $lt: event.streamVersion } },
          {
            $set: {
              businessUnit: op.businessUnit,
              extId: op.extId,
              customerExtId: op.customerExtId,
              type: op.type,
              direction: op.direction,
              amount: op.amount,
              currency: op.currency,
              date: op.date,
              counterparty: op.counterparty,
              description: op.description ?? null,
              revision: event.data.revision,
              version: event.streamVersion,
              updatedAt: event.occurredAt,
            },
            $setOnInsert: { registeredAt: event.occurredAt, archived: false },
          },
          { upsert: true },
        );
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      return;
    }
    case 'OperationArchived':
      await db.collection<OperationDoc>(names.operations).updateOne(
        { _id: event.streamId, version: { $lt: event.streamVersion } },
        {
          $set: {
            archived: true,
            archivedAt: event.occurredAt,
            archivedBy: event.data.requestedBy,
            version: event.streamVersion,
            updatedAt: event.occurredAt,
          },
        },
      );
      return;
    case 'RetroMonitoringAlertRaised': {
      const d = event.data;
      try {
        await db.collection<AlertDoc>(names.alerts).insertOne({
          _id: event.eventId,
          kind: 'RETRO_MONITORING',
          businessUnit: d.businessUnit,
          operationExtId: d.operationExtId,
          customerExtId: d.customerExtId,
          counterpartyName: d.counterpartyName,
          list: d.list,
          ...(d.source !== undefined ? { source: d.source } : {}),
          entryId: d.entryId,
          ...(d.matchedName !== undefined ? { matchedName: d.matchedName } : {}),
          score: d.score,
          snapshotVersion: d.snapshotVersion,
          raisedAt: event.occurredAt,
          ...(d.runId !== undefined ? { runId: d.runId } : {}),
        });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      return;
    }
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
