import type { RiskLevel, CustomerStatus } from './generated/http/customer-parts.v1';

/** The message catalogue: every customer event and command type and its data. */
export const CustomerEventTypes = [
  'CustomerCreated',
  'CustomerUpdated',
  'CustomerStatusChanged',
  'InternalListPurposeRecorded',
  'RiskEvaluationRequested',
  'RiskAssessed',
  'RiskOverrideSet',
  'ScreeningRequested',
  'ScreeningCompleted',
  'ScreeningHitDecided',
  'CustomerCommandRejected',
  'PersonalDataErased',
] as const;
export type CustomerEventType = (typeof CustomerEventTypes)[number];

export const CustomerCommandTypes = [
  'ImportCustomer',
  'ImportSimplifiedCustomer',
  'RecordRiskAssessment',
  'RecordScreeningResult',
  'SetRiskOverride',
  'RequestReevaluation',
  'RecordRescreeningResult',
  'RecordScreeningDecision',
  'ErasePersonalData',
] as const;
export type CustomerCommandType = (typeof CustomerCommandTypes)[number];

export type ScreeningListName = 'SANCTIONS' | 'PEP' | 'ADVERSE_MEDIA' | 'INTERNAL_LIST';
export type Channel = 'SINGLE' | 'BATCH' | 'SIMPLIFIED';

/** The accepted customer record (validated by schemas/http/customer.v1.schema.json at the ingress). */
export type CustomerData = Record<string, unknown> & {
  communicationNumber: string;
  businessUnit: string;
  customerExtId: string;
  entityType: 'INDIVIDUAL' | 'ORGANIZATION';
  action?: 'CREATE' | 'UPDATE';
  sourceOfRiskLevel?: 'EVALUATE' | 'IMPORT';
  riskLevel?: RiskLevel;
  customerStatus?: CustomerStatus;
  closingDate?: string;
  riskManagementCategory?: string;
  initializeScreeningProcesses?: ScreeningListName[];
  listPurpose?: 'WHITE' | 'BLACK';
};

export interface AssessmentData {
  source: 'EVALUATE' | 'IMPORT' | 'OVERRIDE';
  level: RiskLevel;
  score?: number;
  matrixId?: string;
  matrixVersion?: number;
  explanation?: Record<string, unknown>;
  override?: Record<string, unknown>;
}

export interface ScreeningHitData {
  list: ScreeningListName;
  source: string;
  entryId: string;
  names?: string[];
  matchedName: string;
  score: number;
  subject?: string;
  explanation?: Record<string, unknown>;
  suppressed?: boolean;
}

/** A reviewer's decision on one screening hit of a customer (command and event data alike). */
export interface ScreeningHitDecisionData {
  /** eventId of the ScreeningDecisionRecorded on the screening lists topic */
  decisionId: string;
  list: ScreeningListName;
  source: string;
  entryId: string;
  subject: string;
  decision: 'FALSE_POSITIVE' | 'CONFIRMED';
  reason: string;
  decidedBy: string;
}

/** Event data by type (mirrors schemas/events/*.v1.schema.json `data`). */
export interface CustomerEventData {
  CustomerCreated: {
    customer: CustomerData;
    sourceOfRiskLevel: 'EVALUATE' | 'IMPORT';
    channel: Channel;
    simplified?: boolean;
  };
  CustomerUpdated: {
    customer: CustomerData;
    sourceOfRiskLevel: 'EVALUATE' | 'IMPORT';
    channel: Channel;
    simplified?: boolean;
  };
  CustomerStatusChanged: { from?: CustomerStatus | null; to: CustomerStatus; closingDate?: string };
  InternalListPurposeRecorded: { listPurpose: 'WHITE' | 'BLACK' };
  RiskEvaluationRequested: {
    requestId: string;
    reason:
      | 'IMPORT_EVALUATE'
      | 'CUSTOMER_UPDATED'
      | 'SCREENING_CHANGED'
      | 'MATRIX_ACTIVATED'
      | 'OVERRIDE_EXPIRED';
    /** What to evaluate, so the evaluation service needs no state of its own. */
    customer?: CustomerData;
    /** confirmed: a reviewer confirmed a current hit (true) or dismissed every current hit (false); absent: not reviewed. */
    screening?: Partial<
      Record<ScreeningListName, { matched: boolean; hitCount?: number; confirmed?: boolean }>
    >;
    listPurpose?: 'WHITE' | 'BLACK';
  };
  RiskAssessed: { requestId?: string; assessment: AssessmentData; previousLevel?: RiskLevel | null };
  RiskOverrideSet: { level: RiskLevel; reason: string; expiresAt?: string; setBy: string };
  ScreeningRequested: {
    requestId: string;
    lists: ScreeningListName[];
    reason?: string;
    customer?: CustomerData;
  };
  ScreeningCompleted: {
    requestId: string;
    list: ScreeningListName;
    matched: boolean;
    hits: ScreeningHitData[];
    snapshotVersion?: string;
    changed?: boolean;
  };
  ScreeningHitDecided: ScreeningHitDecisionData;
  CustomerCommandRejected: {
    commandType: string;
    errorCode: string;
    errorDescription: string;
    field?: string;
  };
  /** docs/privacy.md: the data key generation keyId was erased; who, why and under which rule. */
  PersonalDataErased: {
    reason: string;
    erasedBy: string;
    override: boolean;
    retentionYears: number;
    source: 'API' | 'RETENTION_JOB';
    keyId?: string;
    relationshipEndedAt?: string | null;
    holdUntil: string | null;
  };
}

/** Command data by type (mirrors schemas/commands/*.v1.schema.json `data`). */
export interface CustomerCommandData {
  ImportCustomer: { customer: CustomerData; channel: 'SINGLE' | 'BATCH' };
  ImportSimplifiedCustomer: { customer: CustomerData };
  RecordRiskAssessment: { requestId: string; assessment: AssessmentData };
  RecordScreeningResult: {
    requestId: string;
    list: ScreeningListName;
    matched: boolean;
    hits: ScreeningHitData[];
    snapshotVersion?: string;
  };
  SetRiskOverride: { level: RiskLevel; reason: string; expiresAt?: string; setBy: string };
  RequestReevaluation: { reason: 'MATRIX_ACTIVATED' | 'SCREENING_CHANGED' | 'OVERRIDE_EXPIRED' };
  /** Ongoing screening: a new list snapshot changed a screened customer's matches (no open request needed). */
  RecordRescreeningResult: {
    list: ScreeningListName;
    matched: boolean;
    hits: ScreeningHitData[];
    snapshotVersion: string;
  };
  /** A reviewer's decision on one hit, reported by the screening service (schemas/commands/record-screening-decision). */
  RecordScreeningDecision: ScreeningHitDecisionData;
  /** docs/privacy.md: erase the customer's personal data (the erasure API or the retention job). */
  ErasePersonalData: {
    reason: string;
    requestedBy: string;
    override: boolean;
    retentionYears: number;
    source: 'API' | 'RETENTION_JOB';
  };
}

export interface EventEnvelope<T extends string = string, D = unknown> {
  eventId: string;
  type: T;
  streamId: string;
  streamVersion: number;
  occurredAt: string;
  correlationId: string;
  causationId: string;
  businessUnit: string;
  customerExtId: string;
  data: D;
}

export interface CommandEnvelope<T extends string = string, D = unknown> {
  commandId: string;
  type: T;
  streamId: string;
  issuedAt: string;
  correlationId: string;
  causationId?: string;
  businessUnit: string;
  customerExtId: string;
  issuedBy?: string;
  data: D;
}

export type CustomerEvent = {
  [K in CustomerEventType]: EventEnvelope<K, CustomerEventData[K]>;
}[CustomerEventType];
export type CustomerCommand = {
  [K in CustomerCommandType]: CommandEnvelope<K, CustomerCommandData[K]>;
}[CustomerCommandType];
