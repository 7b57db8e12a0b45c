import type { ScreeningHitData, ScreeningList } from '@crs/contracts/types';
import { screen, type Hit, type ScreeningIndex } from '@crs/screening-core/matcher';
import { subjectQueries, type ScreeningSubject } from './screening-subjects';

/** Most hits kept per list and subject: reviewers need the strongest candidates, not every weak one. */
export const MAX_HITS_PER_SUBJECT = 25;

function toHitData(hit: Hit, subject: string): ScreeningHitData {
  return {
    list: hit.list,
    source: hit.source,
    entryId: hit.entryId,
    names: hit.names,
    matchedName: hit.matchedName,
    score: hit.score,
    subject,
    explanation: hit.explanation,
  };
}

/**
 * Screens every subject against the requested lists of every index (the list files' index and the
 * customer-derived internal list). One hit per subject and entry (its best name); `admit` filters
 * entries out (another business unit's internal list, the customer itself). Sorted by score, then key.
 */
export function screenSubjects(
  indexes: readonly ScreeningIndex[],
  subjects: readonly ScreeningSubject[],
  lists: readonly ScreeningList[],
  thresholds: Record<ScreeningList, number>,
  admit: (hit: Hit) => boolean = () => true,
): Record<ScreeningList, ScreeningHitData[]> {
  const out = Object.fromEntries(lists.map((l) => [l, [] as ScreeningHitData[]])) as Record<
    ScreeningList,
    ScreeningHitData[]
  >;
  if (lists.length === 0) return out;
  for (const subject of subjects) {
    const best = new Map<string, Hit>();
    for (const query of subjectQueries(subject)) {
      for (const index of indexes) {
        for (const hit of screen(
          index,
          { ...query, lists: [...lists] },
          { threshold: thresholds, limit: MAX_HITS_PER_SUBJECT },
        )) {
          if (!admit(hit)) continue;
          const key = `${hit.source}|${hit.entryId}`;
          const prev = best.get(key);
          if (!prev || hit.score > prev.score) best.set(key, hit);
        }
      }
    }
    for (const hit of best.values()) out[hit.list]?.push(toHitData(hit, subject.key));
  }
  for (const l of lists) {
    out[l].sort(
      (a, b) =>
        b.score - a.score ||
        (a.subject ?? '').localeCompare(b.subject ?? '') ||
        a.source.localeCompare(b.source) ||
        a.entryId.localeCompare(b.entryId),
    );
  }
  return out;
}
