import {
  relationshipEnded,
  relationshipFactsOf,
  retentionHold,
  retentionYearsFor,
  type RelationshipDoc,
  type RetentionPolicy,
} from '@crs/privacy';
import type { CustomerDoc } from '@crs/store';

/**
 * What the job reads of a customer in the `customers` read model: keys and relationship facts, no
 * personal data. The facts may be missing from a document written before they existed.
 */
export type RetentionCustomerDoc = Pick<CustomerDoc, '_id' | 'businessUnit' | 'customerExtId'> &
  Partial<Pick<CustomerDoc, keyof RelationshipDoc | 'personalDataErased'>>;

/** The read-model fields the rule reads (RetentionCustomerDoc): the job reads no other. */
export const RETENTION_PROJECTION = {
  _id: 1,
  businessUnit: 1,
  customerExtId: 1,
  status: 1,
  simplified: 1,
  closingDate: 1,
  statusChangedAt: 1,
  updatedAt: 1,
  personalDataErased: 1,
} as const;

export type RetentionVerdict =
  | { outcome: 'erase'; retentionYears: number; endedAt: string; holdUntil: string; reason: string }
  | { outcome: 'held'; retentionYears: number; endedAt: string | null; holdUntil: string | null }
  | { outcome: 'skipped'; why: 'ERASED' | 'OPEN' };

/**
 * The selection rule of the retention job, pure: a customer whose relationship ended (CLOSED, REJECTED,
 * occasional) and whose retention period is over is erased; one whose period still runs (or whose end
 * cannot be read) is held; an open relationship or a customer already erased is skipped. The relationship
 * end is read from the document as the erasure API reads it, and the decider checks the hold again.
 */
export function erasureCandidate(
  doc: RetentionCustomerDoc,
  policy: RetentionPolicy,
  now: string,
): RetentionVerdict {
  if (doc.personalDataErased === true) return { outcome: 'skipped', why: 'ERASED' };
  const facts = relationshipFactsOf(doc);
  if (!relationshipEnded(facts)) return { outcome: 'skipped', why: 'OPEN' };
  const retentionYears = retentionYearsFor(policy, doc.businessUnit);
  const hold = retentionHold(facts, retentionYears, now);
  if (hold.held || hold.endedAt === null || hold.holdUntil === null)
    return { outcome: 'held', retentionYears, endedAt: hold.endedAt, holdUntil: hold.holdUntil };
  return {
    outcome: 'erase',
    retentionYears,
    endedAt: hold.endedAt,
    holdUntil: hold.holdUntil,
    reason: `retention period over (${retentionYears} years after ${hold.endedAt})`,
  };
}

/** The same customer in the same run always gets the same command id: a resumed run repeats it harmlessly. */
export function retentionCommandId(runId: string, streamId: string): string {
  return `retention:${runId}:${streamId}`;
}
