import type { Db, MongoServerError } from 'mongodb';
import type { CustomerEvent } from '@crs/contracts';
import type { ProjectionName } from '@crs/store';

export type CollectionNames = Record<ProjectionName, string>;

function isDuplicateKey(err: unknown): boolean {
  return (err as MongoServerError)?.code === 11000;
}

/** Inserts a document keyed by event id; a second delivery of the same event is a no-op. */
async function insertOnce(db: Db, collection: string, doc: { _id: string } & Record<string, unknown>): Promise<void> {
  try {
    await db.collection<{ _id: string }>(collection).insertOne(doc);
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
}

/**
 * Applies `set` to the customer document only if it has not seen this stream version yet. With
 * `upsert`, a missing document is created; an existing newer document makes the upsert collide on _id,
 * which means "already applied".
 */
async function updateCustomer(
  db: Db,
  names: CollectionNames,
  event: CustomerEvent,
  set: Record<string, unknown>,
  upsert: boolean,
): Promise<void> {
  try {
    await db.collection<{ _id: string }>(names.customers).updateOne(
      { _id: event.streamId, version: { $lt: event.streamVersion } },
      {
        $set: { ...set, version: event.streamVersion, lastEventId: event.eventId, updatedAt: event.occurredAt },
        ...(upsert ? { $setOnInsert: { createdAt: event.occurredAt } } : {}),
      },
      { upsert },
    );
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
}

/** What the pull endpoint shows of an event: the customer record itself stays in the customer document. */
function eventSummary(event: CustomerEvent): Record<string, unknown> {
  switch (event.type) {
    case 'CustomerCreated':
    case 'CustomerUpdated':
      return {
        channel: event.data.channel,
        sourceOfRiskLevel: event.data.sourceOfRiskLevel,
        simplified: event.data.simplified === true,
        customerStatus: event.data.customer.customerStatus ?? null,
      };
    default:
      return event.data as unknown as Record<string, unknown>;
  }
}

/**
 * The projector: customer events -> read models. Every write is idempotent (stream version guard or
 * event-id key), so redelivery and replay change nothing. Uses only operations FerretDB v1 supports.
 */
export async function applyCustomerEvent(db: Db, names: CollectionNames, event: CustomerEvent): Promise<void> {
  const base = { businessUnit: event.businessUnit, customerExtId: event.customerExtId };
  switch (event.type) {
    case 'CustomerCreated':
    case 'CustomerUpdated':
      await updateCustomer(
        db,
        names,
        event,
        {
          ...base,
          data: event.data.customer,
          simplified: event.data.simplified === true,
          sourceOfRiskLevel: event.data.sourceOfRiskLevel,
          entityType: event.data.customer.entityType,
          riskManagementCategory: event.data.customer.riskManagementCategory ?? null,
          status: event.data.customer.customerStatus ?? null,
          lastCommunicationNumber: event.correlationId,
        },
        true,
      );
      break;
    case 'CustomerStatusChanged':
      await updateCustomer(db, names, event, { status: event.data.to, closingDate: event.data.closingDate ?? null }, false);
      break;
    case 'InternalListPurposeRecorded':
      await updateCustomer(db, names, event, { listPurpose: event.data.listPurpose }, false);
      break;
    case 'RiskAssessed': {
      const assessment = {
        ...event.data.assessment,
        assessedAt: event.occurredAt,
        eventId: event.eventId,
        communicationNumber: event.correlationId,
      };
      await insertOnce(db, names.assessments, {
        _id: event.eventId,
        ...base,
        streamId: event.streamId,
        streamVersion: event.streamVersion,
        ...assessment,
      });
      await updateCustomer(db, names, event, { riskLevel: event.data.assessment.level, latestAssessment: assessment }, false);
      break;
    }
    case 'RiskOverrideSet':
      await updateCustomer(db, names, event, { override: { ...event.data, setAt: event.occurredAt } }, false);
      break;
    case 'ScreeningCompleted': {
      const d = event.data;
      await insertOnce(db, names.screenings, {
        _id: event.eventId,
        ...base,
        streamId: event.streamId,
        streamVersion: event.streamVersion,
        communicationNumber: event.correlationId,
        requestId: d.requestId,
        list: d.list,
        matched: d.matched,
        hits: d.hits,
        snapshotVersion: d.snapshotVersion ?? null,
        screenedAt: event.occurredAt,
      });
      await updateCustomer(
        db,
        names,
        event,
        { [`screening.${d.list}`]: { matched: d.matched, hitCount: d.hits.length, screenedAt: event.occurredAt } },
        false,
      );
      break;
    }
    case 'RiskEvaluationRequested':
    case 'ScreeningRequested':
    case 'CustomerCommandRejected':
      await updateCustomer(db, names, event, {}, false);
      break;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
  await insertOnce(db, names.communication_events, {
    _id: event.eventId,
    ...base,
    communicationNumber: event.correlationId,
    type: event.type,
    occurredAt: event.occurredAt,
    streamVersion: event.streamVersion,
    data: eventSummary(event),
  });
}
