import type {
  AssessmentData,
  CustomerEventData,
  CustomerEventType,
  ScreeningList,
} from '@crs/contracts/types';
import type { StoredAssessmentData } from './stored-json';

/*
 * The documents of the read models, declared once, by their owners' writes: the projector builds
 * `customers`, `assessments`, `screenings` and `communication_events` from the customer log, the archive
 * service `operations` and `alerts` from its own. Readers in other services take these types (a `Pick<>`
 * of the fields they read) instead of declaring their own copy. Types only (the stored form of an
 * assessment has its helpers in stored-json.ts).
 */

type Data = CustomerEventData;

/**
 * A risk assessment as the read models keep it: the event's assessment with where it came from, its
 * explanation as one JSON string (`storeAssessment`, `readAssessment`; decision 0043).
 */
export type AssessmentRecord = StoredAssessmentData & {
  assessedAt: string;
  eventId: string;
  communicationNumber: string;
};

/** The last screening of one list, on the customer document (`screening.<list>`). */
export interface ListScreeningSummary {
  matched: boolean;
  hitCount: number;
  screenedAt: string;
}

/** The risk override in force, as set (an expired one stays until replaced; the evaluation service scans them). */
export type CustomerOverride = Data['RiskOverrideSet'] & { setAt: string };

/** Who erased a customer's personal data, and how (docs/privacy.md). */
export interface CustomerErasure {
  erasedAt: string;
  erasedBy: string;
  source: Data['PersonalDataErased']['source'];
  override: boolean;
  keyId: string | null;
}

/** The last reviewer's decision on a screening hit; its reason stays in the event log. */
export type LastScreeningDecision = Omit<Data['ScreeningHitDecided'], 'decisionId' | 'reason'> & {
  decidedAt: string;
};

/** The `customers` read model: one document per customer stream, `_id` the stream id. */
export interface CustomerDoc {
  _id: string;
  businessUnit: string;
  customerExtId: string;
  /**
   * The customer record as last imported, personal fields encrypted (docs/privacy.md), as one JSON string
   * since decision 0049 (`readCustomerRecord` turns it back, and takes the object documents written before
   * hold). The fields the system queries are fields of the document itself (businessUnit, entityType, status,
   * riskManagementCategory, riskLevel, ...).
   */
  data: string | Data['CustomerCreated']['customer'];
  simplified: boolean;
  sourceOfRiskLevel: Data['CustomerCreated']['sourceOfRiskLevel'];
  entityType: Data['CustomerCreated']['customer']['entityType'];
  riskManagementCategory: string | null;
  status: Data['CustomerStatusChanged']['to'] | null;
  /** Set by a status change; a closing date only with CLOSED. */
  closingDate?: string | null;
  statusChangedAt?: string;
  /** The communication number of the last import. */
  lastCommunicationNumber: string;
  personalDataErased: boolean;
  erasure?: CustomerErasure;
  listPurpose?: Data['InternalListPurposeRecorded']['listPurpose'];
  riskLevel?: AssessmentData['level'];
  latestAssessment?: AssessmentRecord;
  override?: CustomerOverride;
  screening?: { [L in ScreeningList]?: ListScreeningSummary };
  lastScreeningDecision?: LastScreeningDecision;
  /** Stream version of the last event applied: the document moves only forward. */
  version: number;
  lastEventId: string;
  createdAt: string;
  updatedAt: string;
}

/** Keys of a history document: `_id` is the event id, so an event is inserted once. */
interface HistoryKeys {
  _id: string;
  businessUnit: string;
  customerExtId: string;
}

/** The `assessments` read model: every risk assessment of a customer. */
export type AssessmentDoc = HistoryKeys & { streamId: string; streamVersion: number } & AssessmentRecord;

/** The `screenings` read model: every screening result of a customer. */
export interface ScreeningDoc extends HistoryKeys {
  streamId: string;
  streamVersion: number;
  communicationNumber: string;
  requestId: string;
  list: Data['ScreeningCompleted']['list'];
  matched: boolean;
  hits: Data['ScreeningCompleted']['hits'];
  snapshotVersion: string | null;
  screenedAt: string;
}

/**
 * One event of a communication, for the pull endpoint: what the projection makes of each event
 * (`_id` = event id). Since decision 0050 the `communication_events` read model stores these folded into
 * `CommunicationEventsDoc` groups; documents written before are one event each, in this shape.
 */
export interface CommunicationEventDoc extends HistoryKeys {
  communicationNumber: string;
  type: CustomerEventType;
  occurredAt: string;
  streamVersion: number;
  /**
   * The event's data as one JSON string (decision 0046; `readEventData` turns it back, and takes the
   * object of documents written before); for CustomerCreated and CustomerUpdated a summary (channel,
   * sourceOfRiskLevel, simplified, customerStatus): the record itself stays in the customer document.
   */
  data: string | Record<string, unknown>;
}

/** An event as the projection hands it to `groupCommunicationEvents`: its data as the object. */
export type ProjectedCommunicationEvent = CommunicationEventDoc & { data: Record<string, unknown> };

/**
 * The `communication_events` read model (decision 0050): the events of one communication that one write
 * saw together (a projector chunk, a stretch of a replay), at most `MAX_EVENTS_PER_COMMUNICATION_DOC`.
 * `events` is one JSON string (an array of `CommunicationEventEntry`): FerretDB v1 converts a document
 * field by field, and nothing queries inside it. `_id` is derived from the event ids it holds, so writing
 * the same group again collides (already applied); a group cut differently (another fetch) may hold
 * events another document holds too: readers de-duplicate by event id (`communicationEventsOf`).
 */
export interface CommunicationEventsDoc {
  _id: string;
  businessUnit: string;
  communicationNumber: string;
  /** How many events `events` holds. */
  count: number;
  events: string;
}

/** One event inside `CommunicationEventsDoc.events`. */
export interface CommunicationEventEntry {
  eventId: string;
  customerExtId: string;
  type: CustomerEventType;
  occurredAt: string;
  streamVersion: number;
  data: Record<string, unknown>;
}

/** The `operations` read model (the archive service's); `_id` is the stream id `<businessUnit>:<extId>`. */
export interface OperationDoc {
  _id: string;
  businessUnit: string;
  extId: string;
  customerExtId: string;
  type: string;
  direction: string;
  amount: number;
  currency: string;
  /** Booking date YYYY-MM-DD: the retro-monitoring look-back window applies to it. */
  date: string;
  counterparty: { name: string; country: string; account?: string; bank?: string };
  description?: string | null;
  revision: number;
  archived: boolean;
  archivedAt?: string;
  archivedBy?: string;
  /** ISO date-time of the first registration: the reconciliation window applies to it. */
  registeredAt: string;
  updatedAt: string;
  version: number;
}

/** The `alerts` read model (the archive service's): alerts of the retro monitoring, keyed by event id. */
export interface AlertDoc {
  _id: string;
  kind: 'RETRO_MONITORING';
  businessUnit: string;
  operationExtId: string;
  customerExtId: string;
  counterpartyName: string;
  list: string;
  source?: string;
  entryId: string;
  matchedName?: string;
  score: number;
  snapshotVersion: string;
  raisedAt: string;
  runId?: string;
}
