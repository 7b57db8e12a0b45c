import { createHash } from 'node:crypto';
import type { ListEntry, ListSnapshot, ListSource, ScreeningList, SnapshotDiff } from '../model';

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = stable(v);
    }
    return out;
  }
  return value;
}

/** sha256 of the entry's canonical JSON: equal content gives an equal hash whatever the key order. */
export function entryContentHash(entry: ListEntry): string {
  return createHash('sha256')
    .update(JSON.stringify(stable(entry)))
    .digest('hex');
}

/** sha256 over the raw input files in the given order. */
export function contentVersion(inputs: readonly Buffer[]): string {
  const hash = createHash('sha256');
  for (const input of inputs) hash.update(input);
  return hash.digest('hex');
}

export function makeSnapshot(
  list: ScreeningList,
  source: ListSource,
  inputs: readonly Buffer[],
  entries: ListEntry[],
  loadedAt: string,
): ListSnapshot {
  return { list, source, version: contentVersion(inputs), entryCount: entries.length, loadedAt, entries };
}

/** Entry ids added, changed (different content hash) and removed between two snapshots of one source. */
export function diffSnapshots(prev: ListSnapshot, next: ListSnapshot): SnapshotDiff {
  const before = new Map(prev.entries.map((e) => [e.id, entryContentHash(e)]));
  const added: string[] = [];
  const changed: string[] = [];
  const seen = new Set<string>();
  for (const entry of next.entries) {
    seen.add(entry.id);
    const old = before.get(entry.id);
    if (old === undefined) added.push(entry.id);
    else if (old !== entryContentHash(entry)) changed.push(entry.id);
  }
  const removed = prev.entries.filter((e) => !seen.has(e.id)).map((e) => e.id);
  return { added, changed, removed };
}
