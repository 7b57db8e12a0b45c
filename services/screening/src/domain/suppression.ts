import type { ScreeningHitData, ScreeningList } from '@crs/contracts/types';

export type DecisionKind = 'FALSE_POSITIVE' | 'CONFIRMED';

/** A reviewer's decision on one hit, as recorded in the ScreeningDecisionRecorded log. */
export interface ScreeningDecision {
  streamId: string;
  list: ScreeningList;
  source: string;
  entryId: string;
  decision: DecisionKind;
  subject: string;
  /** Content hash of the entry when decided. */
  entryHash: string;
  /** Fingerprint of the screened name's normalised words when decided (`nameHashOf` below). */
  screenedNameHash: string;
}

export function decisionKey(streamId: string, list: string, source: string, entryId: string): string {
  return `${streamId}|${list}|${source}|${entryId}`;
}

/** The normalised words of the screened name that produced a hit (from the matcher's explanation). */
export function queryTokensOf(hit: ScreeningHitData): string[] {
  const tokens = (hit.explanation as { queryTokens?: unknown } | undefined)?.queryTokens;
  return Array.isArray(tokens) ? tokens.filter((t): t is string => typeof t === 'string') : [];
}

/** The decisions, latest per customer + list entry (a later decision replaces an earlier one). */
export class DecisionBook {
  private readonly byKey = new Map<string, ScreeningDecision>();

  record(d: ScreeningDecision): void {
    this.byKey.set(decisionKey(d.streamId, d.list, d.source, d.entryId), d);
  }

  get(streamId: string, list: string, source: string, entryId: string): ScreeningDecision | undefined {
    return this.byKey.get(decisionKey(streamId, list, source, entryId));
  }

  get size(): number {
    return this.byKey.size;
  }
}

/**
 * Marks hits a reviewer declared FALSE_POSITIVE as suppressed, for as long as both the list entry (content
 * hash) and the screened name are what they were when decided; either changing brings the hit back.
 * CONFIRMED decisions never suppress. `entryHashOf` returns the current content hash of an entry and
 * `nameHashOf` the fingerprint of a screened name's normalised words (hashing is not the domain's job).
 */
export function applySuppression(
  streamId: string,
  hits: readonly ScreeningHitData[],
  book: DecisionBook,
  entryHashOf: (source: string, entryId: string) => string | undefined,
  nameHashOf: (queryTokens: readonly string[]) => string,
): ScreeningHitData[] {
  return hits.map((hit) => {
    const { suppressed: _previous, ...bare } = hit;
    const d = book.get(streamId, hit.list, hit.source, hit.entryId);
    if (!d || d.decision !== 'FALSE_POSITIVE') return bare;
    const sameEntry = entryHashOf(hit.source, hit.entryId) === d.entryHash;
    const sameName = nameHashOf(queryTokensOf(hit)) === d.screenedNameHash;
    return sameEntry && sameName ? { ...bare, suppressed: true } : bare;
  });
}

/** Same key as the decider's: suppressed hits do not count as matches. */
export function matchKeys(hits: readonly ScreeningHitData[]): string[] {
  return hits
    .filter((h) => !h.suppressed)
    .map((h) => `${h.subject ?? 'CUSTOMER'}|${h.source}|${h.entryId}`)
    .sort();
}

export function sameMatches(a: readonly ScreeningHitData[], b: readonly ScreeningHitData[]): boolean {
  return matchKeys(a).join() === matchKeys(b).join();
}
