import type { CustomerFields } from './generated/http/customer-parts.v1';
import type {
  CustomerCommandTypes,
  CustomerEventTypes,
  GeneratedCustomerCommand,
  GeneratedCustomerEvent,
} from './generated/messages';
import type { RiskEvaluationRequested } from './generated/events/risk-evaluation-requested.v1';
import type { ScreeningList } from './generated/risk/risk-matrix.v1';

/**
 * The customer message catalogue: every event and command with its data, as generated from
 * schemas/events and schemas/commands (generated/messages.ts). Two fields are typed closer than their
 * schemas say, for what the schemas leave open without constraining it (docs/decisions/0023):
 * `customer` and the `screening` summary.
 */
export type CustomerEventType = (typeof CustomerEventTypes)[number];
export type CustomerCommandType = (typeof CustomerCommandTypes)[number];

/**
 * The customer record as events and commands carry it. Their schemas leave it an open object: the
 * ingress validated it against schemas/http/customer.v1 before, and personal fields may be encrypted
 * since. The fields the services read without decrypting are typed as that schema types them.
 */
export type CustomerData = { [k: string]: unknown } & Pick<
  CustomerFields,
  'communicationNumber' | 'businessUnit' | 'customerExtId' | 'entityType'
> &
  Partial<
    Pick<
      CustomerFields,
      | 'action'
      | 'sourceOfRiskLevel'
      | 'riskLevel'
      | 'customerStatus'
      | 'closingDate'
      | 'riskManagementCategory'
      | 'initializeScreeningProcesses'
      | 'listPurpose'
    >
  >;

type ScreeningSummaryEntry = NonNullable<NonNullable<RiskEvaluationRequested['data']['screening']>[string]>;

/**
 * Latest screening result per list, as RiskEvaluationRequested carries it. The schema lets each entry
 * hold more than it names: the decider adds `confirmed` (a reviewer confirmed a current hit: true,
 * dismissed every current hit: false, absent: not reviewed).
 */
export type ScreeningSummary = {
  [L in ScreeningList]?: ScreeningSummaryEntry & { confirmed?: boolean };
};

/** A message's data with the two open fields typed (customer, screening); every other field as generated. */
type Refined<D> = {
  [K in keyof D]: K extends 'customer' ? CustomerData : K extends 'screening' ? ScreeningSummary : D[K];
};
type WithRefinedData<M> = M extends { data: infer D } ? Omit<M, 'data'> & { data: Refined<D> } : never;

export type CustomerEvent = WithRefinedData<GeneratedCustomerEvent>;
export type CustomerCommand = WithRefinedData<GeneratedCustomerCommand>;

/** Event data by type. */
export type CustomerEventData = { [E in CustomerEvent as E['type']]: E['data'] };
/** Command data by type. */
export type CustomerCommandData = { [C in CustomerCommand as C['type']]: C['data'] };

/** The envelope every customer event schema declares, around a type and data of the caller's choice. */
export type EventEnvelope<T extends string = string, D = unknown> = Omit<CustomerEvent, 'type' | 'data'> & {
  type: T;
  data: D;
};
/** The envelope every customer command schema declares, around a type and data of the caller's choice. */
export type CommandEnvelope<T extends string = string, D = unknown> = Omit<
  CustomerCommand,
  'type' | 'data'
> & { type: T; data: D };

export type Channel = CustomerEventData['CustomerCreated']['channel'];
export type AssessmentData = CustomerEventData['RiskAssessed']['assessment'];
export type ScreeningHitData = CustomerEventData['ScreeningCompleted']['hits'][number];
/** A reviewer's decision on one screening hit of a customer (command and event data alike). */
export type ScreeningHitDecisionData = CustomerEventData['ScreeningHitDecided'];

/**
 * The Kafka header of `CustomerCreated` and `CustomerUpdated` that carries the record's `listPurpose`
 * (its value, `BLACK` or `WHITE` today, or `NONE` when the record has none), set by the customer decider.
 * `NONE` says only that this record carries no purpose (a later update of a BLACK customer carries none
 * either): a reader that folds list purposes (the screening directory) skips such a record unparsed only
 * for a customer it holds no purpose for. Events appended before it existed have no such header and are
 * read whole.
 */
export const LIST_PURPOSE_HEADER = 'listPurpose';

/** The `listPurpose` header's value for a record (see LIST_PURPOSE_HEADER). */
export function listPurposeHeader(record: { listPurpose?: unknown } | null | undefined): string {
  // Any value present goes as it is (a future purpose must not read as none); absent or null is NONE.
  const purpose = record?.listPurpose;
  return purpose === undefined || purpose === null ? 'NONE' : String(purpose);
}
