/**
 * The retention rule of personal data (docs/privacy.md, "Retention"), pure: AML law keeps a customer's
 * records for a period after the business relationship ends (5 years under the EU AML directives, longer
 * where national law says so); only then may the data be erased, unless an explicit override is given.
 * The customer decider applies it (authoritative); the ingress applies the same function to the read
 * model to answer 409 at once, and the retention job to choose whom to erase.
 */

export interface RetentionPolicy {
  defaultYears: number;
  byBusinessUnit: Readonly<Record<string, number>>;
}

/** Where a relationship stands: its status, and when it ended (CLOSED, REJECTED, an occasional customer). */
export interface RelationshipFacts {
  status?: string | null;
  /** closingDate of a CLOSED customer, or the day of the status change that ended it. */
  endedAt?: string | null;
  /** A simplified (occasional) customer has no relationship status: its last import is its end. */
  simplified?: boolean;
}

export interface RetentionHold {
  held: boolean;
  /** When the relationship ended (YYYY-MM-DD or an ISO date-time); null while it is open. */
  endedAt: string | null;
  /** The end of the hold: endedAt plus the period; null while the relationship is open (no end yet). */
  holdUntil: string | null;
}

/** Parses `PRIVACY_RETENTION_BY_BU` (`BU1:7,BU2:10`); throws with the entry that is wrong. */
export function parseRetentionPolicy(defaultYears: number, byBusinessUnit: string): RetentionPolicy {
  if (!Number.isInteger(defaultYears) || defaultYears < 0 || defaultYears > 100)
    throw new Error('PRIVACY_RETENTION_YEARS must be an integer from 0 to 100');
  const map: Record<string, number> = {};
  for (const raw of byBusinessUnit.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const m = /^([^:\s]+):(\d{1,3})$/.exec(entry);
    if (!m || Number(m[2]) > 100)
      throw new Error(`PRIVACY_RETENTION_BY_BU: "${entry}" is not <businessUnit>:<years 0..100>`);
    map[m[1]!] = Number(m[2]);
  }
  return { defaultYears, byBusinessUnit: map };
}

export function retentionYearsFor(policy: RetentionPolicy, businessUnit: string): number {
  return policy.byBusinessUnit[businessUnit] ?? policy.defaultYears;
}

const ENDED = new Set(['CLOSED', 'REJECTED']);

/** Whether the relationship has ended: CLOSED, REJECTED, or an occasional (simplified) customer. */
export function relationshipEnded(facts: RelationshipFacts): boolean {
  return facts.simplified === true || ENDED.has(String(facts.status ?? ''));
}

/** The fields of a customer's document in the `customers` read model that tell where its relationship stands. */
export interface RelationshipDoc {
  status?: string | null;
  simplified?: boolean | null;
  closingDate?: string | null;
  statusChangedAt?: string | null;
  updatedAt?: string | null;
}

/**
 * The relationship facts of a customer as the read model holds them: a CLOSED customer ended on its
 * closingDate (else the day of the status change), a REJECTED or occasional one at the status change
 * (else its last update). The erasure API and the retention job both read the read model this way.
 */
export function relationshipFactsOf(doc: RelationshipDoc): RelationshipFacts {
  const endedAt =
    doc.status === 'CLOSED'
      ? (doc.closingDate ?? doc.statusChangedAt ?? null)
      : doc.status === 'REJECTED' || doc.simplified === true
        ? (doc.statusChangedAt ?? doc.updatedAt ?? null)
        : null;
  return { status: doc.status ?? null, endedAt, simplified: doc.simplified === true };
}

/** Adds whole years to a date (YYYY-MM-DD or ISO date-time); 29 February moves to 1 March. */
export function addYears(date: string, years: number): string {
  const d = new Date(date.length === 10 ? `${date}T00:00:00.000Z` : date);
  if (Number.isNaN(d.getTime())) throw new Error('not a date');
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString();
}

/**
 * Whether a retention hold applies now: while the relationship is open it always does; after it ended,
 * until `years` have passed. A relationship that ended on a date that does not parse is held (never
 * erased by mistake).
 */
export function retentionHold(facts: RelationshipFacts, years: number, now: string): RetentionHold {
  const ended = relationshipEnded(facts);
  const endedAt = ended ? (facts.endedAt ?? null) : null;
  if (!ended || endedAt === null) return { held: true, endedAt: null, holdUntil: null };
  let holdUntil: string;
  try {
    holdUntil = addYears(endedAt, years);
  } catch {
    return { held: true, endedAt, holdUntil: null };
  }
  return { held: now < holdUntil, endedAt, holdUntil };
}
