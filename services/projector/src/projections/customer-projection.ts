import type { CustomerEvent, ScreeningList } from '@crs/contracts';
import type {
  AssessmentDoc,
  AssessmentRecord,
  CustomerDoc,
  CustomerProjectionName,
  ListScreeningSummary,
  ProjectedCommunicationEvent,
  ScreeningDoc,
} from '@crs/store';
import { storeAssessment } from '@crs/store';

/** Physical collection of each read model the projector owns (operations and alerts are the archive's). */
export type CollectionNames = Record<CustomerProjectionName, string>;

/** The fields of the customer document one event sets: named fields, and one list's screening by path. */
export type CustomerSet = Partial<Omit<CustomerDoc, '_id' | 'createdAt' | 'screening'>> & {
  [L in ScreeningList as `screening.${L}`]?: ListScreeningSummary;
};

/**
 * A document of a history read model, keyed by event id and inserted once; a `communication_events` one
 * is an event the executors fold into its communication's document before writing (decision 0050).
 */
export type HistoryInsert =
  | { projection: 'assessments'; doc: AssessmentDoc }
  | { projection: 'screenings'; doc: ScreeningDoc }
  | { projection: 'communication_events'; doc: ProjectedCommunicationEvent };
export type HistoryName = HistoryInsert['projection'];
export type HistoryDoc = HistoryInsert['doc'];

/**
 * What one event does to the read models, as data: fields to set on the customer document (only if
 * the document has not seen this stream version; `upsert` creates it) and history documents keyed by
 * event id. Two executors apply it: MongoDB for the live projector, memory for a fast replay; the
 * replay test proves they agree.
 */
export interface ProjectionEffect {
  customer: { set: CustomerSet; upsert: boolean };
  inserts: HistoryInsert[];
}

/**
 * What the pull endpoint shows of an event (stored inside its communication's document as one JSON
 * string: decisions 0046, 0050; `groupCommunicationEvents` folds the events a write sees). The customer
 * record of CustomerCreated / CustomerUpdated stays in the customer document.
 */
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
      return event.data;
  }
}

/** Pure: the effect of one customer event on the read models. */
export function projectCustomerEvent(event: CustomerEvent): ProjectionEffect {
  const base = { businessUnit: event.businessUnit, customerExtId: event.customerExtId };
  const inserts: ProjectionEffect['inserts'] = [];
  let set: CustomerSet = {};
  let upsert = false;
  switch (event.type) {
    case 'CustomerCreated':
    case 'CustomerUpdated':
      upsert = true;
      set = {
        ...base,
        // One JSON string: FerretDB v1 handles a document field by field (decision 0049).
        data: JSON.stringify(event.data.customer),
        simplified: event.data.simplified === true,
        sourceOfRiskLevel: event.data.sourceOfRiskLevel,
        entityType: event.data.customer.entityType,
        riskManagementCategory: event.data.customer.riskManagementCategory ?? null,
        status: event.data.customer.customerStatus ?? null,
        lastCommunicationNumber: event.correlationId,
        // A record imported after an erasure is a new relationship's data, under a new key.
        personalDataErased: false,
      };
      break;
    case 'CustomerStatusChanged':
      set = {
        status: event.data.to,
        closingDate: event.data.closingDate ?? null,
        statusChangedAt: event.occurredAt,
      };
      break;
    case 'PersonalDataErased':
      // docs/privacy.md: the record stays as it was (ciphertext of an erased key); readers show it erased.
      set = {
        personalDataErased: true,
        erasure: {
          erasedAt: event.occurredAt,
          erasedBy: event.data.erasedBy,
          source: event.data.source,
          override: event.data.override,
          keyId: event.data.keyId ?? null,
        },
      };
      break;
    case 'InternalListPurposeRecorded':
      set = { listPurpose: event.data.listPurpose };
      break;
    case 'RiskAssessed': {
      // The explanation stored as one JSON string (decision 0043).
      const assessment: AssessmentRecord = {
        ...storeAssessment(event.data.assessment),
        assessedAt: event.occurredAt,
        eventId: event.eventId,
        communicationNumber: event.correlationId,
      };
      inserts.push({
        projection: 'assessments',
        doc: {
          _id: event.eventId,
          ...base,
          streamId: event.streamId,
          streamVersion: event.streamVersion,
          ...assessment,
        },
      });
      set = { riskLevel: event.data.assessment.level, latestAssessment: assessment };
      break;
    }
    case 'RiskOverrideSet':
      set = { override: { ...event.data, setAt: event.occurredAt } };
      break;
    case 'ScreeningCompleted': {
      const d = event.data;
      inserts.push({
        projection: 'screenings',
        doc: {
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
        },
      });
      set = {
        [`screening.${d.list}`]: {
          matched: d.matched,
          hitCount: d.hits.length,
          screenedAt: event.occurredAt,
        },
      };
      break;
    }
    case 'ScreeningHitDecided': {
      // The reviewer's reason stays in the event log (and the pull endpoint); the document shows the decision.
      const { list, source, entryId, subject, decision, decidedBy } = event.data;
      set = {
        lastScreeningDecision: {
          list,
          source,
          entryId,
          subject,
          decision,
          decidedBy,
          decidedAt: event.occurredAt,
        },
      };
      break;
    }
    case 'RiskEvaluationRequested':
    case 'ScreeningRequested':
    case 'CustomerCommandRejected':
      break;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
  inserts.push({
    projection: 'communication_events',
    doc: {
      _id: event.eventId,
      ...base,
      communicationNumber: event.correlationId,
      type: event.type,
      occurredAt: event.occurredAt,
      streamVersion: event.streamVersion,
      data: eventSummary(event),
    },
  });
  return {
    customer: {
      set: { ...set, version: event.streamVersion, lastEventId: event.eventId, updatedAt: event.occurredAt },
      upsert,
    },
    inserts,
  };
}
