import type { ScreeningHitData } from '@crs/contracts/types';
import type { SnapshotDiff } from '@crs/screening-core/matcher';

/**
 * A customer's hits on one list after a new snapshot of one source: hits on that source's removed and
 * changed entries are dropped, hits found against the added and changed entries are added (a changed
 * entry that still matches comes back with its fresh score).
 */
export function mergeRescreenedHits(
  previous: readonly ScreeningHitData[],
  source: string,
  diff: Pick<SnapshotDiff, 'changed' | 'removed'>,
  fresh: readonly ScreeningHitData[],
): ScreeningHitData[] {
  const gone = new Set([...diff.changed, ...diff.removed]);
  const kept = previous.filter((h) => !(h.source === source && gone.has(h.entryId)));
  const seen = new Set(kept.map((h) => `${h.subject ?? 'CUSTOMER'}|${h.source}|${h.entryId}`));
  const added = fresh.filter((h) => !seen.has(`${h.subject ?? 'CUSTOMER'}|${h.source}|${h.entryId}`));
  return [...kept, ...added].sort(
    (a, b) => b.score - a.score || a.source.localeCompare(b.source) || a.entryId.localeCompare(b.entryId),
  );
}

/** Splits work into chunks of at most `size` items, so a large re-screening yields between chunks. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
