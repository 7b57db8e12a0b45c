import type { Identifier, ListEntry } from '../model';
import { normalizeCountry } from './countries';

export type QualifierKind = 'BIRTH_DATE' | 'COUNTRY' | 'IDENTIFIER';
export type QualifierOutcome = 'EXACT' | 'SAME_YEAR' | 'CLOSE' | 'MISMATCH' | 'MATCH' | 'CONFLICT';

/** One piece of evidence besides the name and how much it moved the score. */
export interface QualifierResult {
  kind: QualifierKind;
  outcome: QualifierOutcome;
  delta: number;
  detail: string;
}

/**
 * Score adjustments. A full date or an identifier agreeing is strong evidence; a birth year two or
 * more years apart is strong evidence of a different person. One year or one month apart is kept
 * nearly neutral because lists and customer files both carry such errors.
 */
export const QUALIFIER_DELTAS = {
  birthDateExact: 0.05,
  birthDateSameYear: 0.02,
  birthDateClose: -0.02,
  birthDateMismatch: -0.15,
  countryMatch: 0.02,
  countryMismatch: -0.05,
  identifierMatch: 0.2,
  uniqueIdentifierConflict: -0.2,
} as const;

/** Largest total raise the qualifiers can give, so candidates that cannot reach the threshold are skipped. */
export const MAX_QUALIFIER_RAISE =
  QUALIFIER_DELTAS.birthDateExact + QUALIFIER_DELTAS.countryMatch + QUALIFIER_DELTAS.identifierMatch;

/** Identifier types that belong to exactly one entity, so two different values rule a match out. */
const UNIQUE_IDENTIFIER_TYPES = new Set(['IMO', 'LEI']);

interface ParsedDate {
  year: number;
  month?: number;
  day?: number;
}

function parseDate(text: string): ParsedDate | undefined {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/.exec(text.trim());
  if (!m) return undefined;
  const d: ParsedDate = { year: Number(m[1]) };
  if (m[2]) d.month = Number(m[2]);
  if (m[3]) d.day = Number(m[3]);
  return d;
}

const OUTCOME_RANK: Record<string, number> = { EXACT: 0, SAME_YEAR: 1, CLOSE: 2, MISMATCH: 3 };

export function compareBirthDates(query: string, candidates: readonly string[]): QualifierResult | undefined {
  const q = parseDate(query);
  if (!q) return undefined;
  let best: QualifierResult | undefined;
  for (const text of candidates) {
    const c = parseDate(text);
    if (!c) continue;
    let result: QualifierResult;
    const diff = Math.abs(q.year - c.year);
    const bothFull = q.month !== undefined && c.month !== undefined;
    if (
      diff === 0 &&
      bothFull &&
      q.month === c.month &&
      (q.day === undefined || c.day === undefined || q.day === c.day)
    ) {
      const exact = q.day !== undefined && c.day !== undefined;
      result = exact
        ? {
            kind: 'BIRTH_DATE',
            outcome: 'EXACT',
            delta: QUALIFIER_DELTAS.birthDateExact,
            detail: `${query} = ${text}`,
          }
        : {
            kind: 'BIRTH_DATE',
            outcome: 'SAME_YEAR',
            delta: QUALIFIER_DELTAS.birthDateSameYear,
            detail: `${query} ~ ${text}`,
          };
    } else if (diff === 0 && !bothFull) {
      result = {
        kind: 'BIRTH_DATE',
        outcome: 'SAME_YEAR',
        delta: QUALIFIER_DELTAS.birthDateSameYear,
        detail: `${query} ~ ${text}`,
      };
    } else if (diff <= 1) {
      result = {
        kind: 'BIRTH_DATE',
        outcome: 'CLOSE',
        delta: QUALIFIER_DELTAS.birthDateClose,
        detail: `${query} ~ ${text}`,
      };
    } else {
      result = {
        kind: 'BIRTH_DATE',
        outcome: 'MISMATCH',
        delta: QUALIFIER_DELTAS.birthDateMismatch,
        detail: `${query} != ${text}`,
      };
    }
    if (!best || OUTCOME_RANK[result.outcome]! < OUTCOME_RANK[best.outcome]!) best = result;
  }
  return best;
}

export function compareCountries(
  query: readonly string[],
  candidates: readonly string[],
): QualifierResult | undefined {
  const q = new Set(query.map((c) => normalizeCountry(c) ?? c.toUpperCase()));
  const c = candidates.map((x) => normalizeCountry(x)).filter((x): x is string => x !== undefined);
  if (q.size === 0 || c.length === 0) return undefined;
  const common = c.filter((x) => q.has(x));
  if (common.length > 0) {
    return {
      kind: 'COUNTRY',
      outcome: 'MATCH',
      delta: QUALIFIER_DELTAS.countryMatch,
      detail: common.join(','),
    };
  }
  return {
    kind: 'COUNTRY',
    outcome: 'MISMATCH',
    delta: QUALIFIER_DELTAS.countryMismatch,
    detail: `${[...q].join(',')} vs ${c.join(',')}`,
  };
}

/** Upper-case alphanumerics without a repeated type prefix: "IMO 9187629" and "9187629" are equal. */
function idValue(id: Identifier): string {
  const v = id.value.toUpperCase().replace(/[^A-Z0-9]/g, '');
  const prefix = id.type.toUpperCase().replace(/[^A-Z0-9]/g, '');
  return prefix && v.startsWith(prefix) && v.length - prefix.length >= 5 ? v.slice(prefix.length) : v;
}

export function compareIdentifiers(
  query: readonly Identifier[],
  candidates: readonly Identifier[],
): QualifierResult | undefined {
  if (query.length === 0 || candidates.length === 0) return undefined;
  for (const q of query) {
    const v = idValue(q);
    if (v.length < 5) continue;
    const hit = candidates.find((c) => idValue(c) === v);
    if (hit)
      return {
        kind: 'IDENTIFIER',
        outcome: 'MATCH',
        delta: QUALIFIER_DELTAS.identifierMatch,
        detail: `${hit.type} ${hit.value}`,
      };
  }
  for (const q of query) {
    const type = q.type.toUpperCase();
    if (!UNIQUE_IDENTIFIER_TYPES.has(type)) continue;
    const other = candidates.find((c) => c.type.toUpperCase() === type);
    if (other) {
      return {
        kind: 'IDENTIFIER',
        outcome: 'CONFLICT',
        delta: QUALIFIER_DELTAS.uniqueIdentifierConflict,
        detail: `${type} ${q.value} != ${other.value}`,
      };
    }
  }
  return undefined;
}

export interface QualifierQuery {
  birthDate?: string;
  countries?: string[];
  identifiers?: Identifier[];
}

/** Every qualifier that applies to the pair; birth dates only between individuals. */
export function qualify(query: QualifierQuery, entry: ListEntry): QualifierResult[] {
  const out: QualifierResult[] = [];
  if (query.birthDate && entry.entityType === 'INDIVIDUAL' && entry.birthDates?.length) {
    const r = compareBirthDates(query.birthDate, entry.birthDates);
    if (r) out.push(r);
  }
  if (query.countries?.length && entry.countries?.length) {
    const r = compareCountries(query.countries, entry.countries);
    if (r) out.push(r);
  }
  if (query.identifiers?.length && entry.identifiers?.length) {
    const r = compareIdentifiers(query.identifiers, entry.identifiers);
    if (r) out.push(r);
  }
  return out;
}
