import { ScreeningQueryInvalidError } from './errors';
import type { TokenPair } from './matching/name-score';
import type { QualifierResult } from './matching/qualifiers';
import type { NameReading } from './matching/readings';
import type { EntityType, Identifier, ListSource, ScreeningList } from './model';

/**
 * Default alert threshold for every list. Chosen on the evaluation sets (docs/screening.md): it keeps
 * recall of the treated UN positives above 98 % while fewer than 0.5 % of synthetic negatives alert.
 */
export const DEFAULT_THRESHOLD = 0.86;

export interface ScreeningQuery {
  name: string;
  entityType?: EntityType;
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  birthDate?: string;
  /** ISO alpha-2 codes or English country names. */
  countries?: string[];
  identifiers?: Identifier[];
  /** Lists to screen against; all when omitted. */
  lists?: ScreeningList[];
}

export interface ScreeningOptions {
  /** One threshold for all lists, or per list (lists left out use {@link DEFAULT_THRESHOLD}). */
  threshold?: number | Partial<Record<ScreeningList, number>>;
  /** Most hits to return (after sorting); default 20. */
  limit?: number;
}

export type HitExplanation = {
  matchedName: string;
  /** The query name's words as written (for a hit through a reading too: its words are in `tokenPairs`). */
  queryTokens: string[];
  candidateTokens: string[];
  tokenPairs: TokenPair[];
  nameScore: number;
  qualifiers: QualifierResult[];
  /** Taken off the score: two or more short words matched only approximately ({@link SHORT_WORD_PENALTY}). */
  shortWordPenalty?: number;
  /** The reading of a Han or Hangul query name that matched, when it was not the name as written. */
  reading?: NameReading;
};

export interface Hit {
  list: ScreeningList;
  source: ListSource;
  entryId: string;
  entityType: EntityType;
  names: string[];
  matchedName: string;
  score: number;
  explanation: HitExplanation;
}

export function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}

export function thresholdFor(options: ScreeningOptions, list: ScreeningList): number {
  const t = options.threshold;
  if (typeof t === 'number') return t;
  return t?.[list] ?? DEFAULT_THRESHOLD;
}

export function minThreshold(options: ScreeningOptions): number {
  const t = options.threshold;
  if (typeof t === 'number') return t;
  return Math.min(
    DEFAULT_THRESHOLD,
    ...Object.values(t ?? {}).filter((v): v is number => typeof v === 'number'),
  );
}

export function validate(query: ScreeningQuery): void {
  if (typeof query.name !== 'string' || query.name.trim() === '')
    throw new ScreeningQueryInvalidError('name is required');
}

/** Hits by score, then source and entry id, so equal scores keep one order. */
export function byRank(a: Hit, b: Hit): number {
  return b.score - a.score || a.source.localeCompare(b.source) || a.entryId.localeCompare(b.entryId);
}
