import type { ScreeningList } from '@crs/contracts';
import type { Logger } from '@crs/runtime';
import {
  buildIndex,
  entryContentHash,
  KOREAN_READER,
  makeSnapshot,
  type ListSnapshot,
  type NameReader,
  type ScreeningIndex,
} from '@crs/screening-core';
import { INTERNAL_CUSTOMERS_SOURCE, type CustomerDirectory } from '../domain/customer-directory';
import type { ListCatalog } from './list-catalog';

interface InternalList {
  revision: number;
  snapshot: ListSnapshot;
  index: ScreeningIndex;
  hashes: Map<string, string>;
}

export interface ScreeningIndexesOptions {
  catalog: ListCatalog;
  directory: CustomerDirectory;
  logger: Logger;
  clock: () => Date;
}

/**
 * The indexes screening runs against: the list files' (rebuilt when the catalog changes) and the
 * customer-derived internal list's (rebuilt when a BLACK mark changed; it is small).
 */
export class ScreeningIndexes {
  private main: ScreeningIndex | undefined;
  private internal: InternalList | undefined;
  // Korean readings until the Japanese dictionary is loaded at start (when configured).
  private reader: NameReader = KOREAN_READER;

  constructor(private readonly options: ScreeningIndexesOptions) {}

  /** Reads names through `reader` in every index built from now on. */
  useReader(reader: NameReader): void {
    this.reader = reader;
  }

  indexOf(snapshots: readonly ListSnapshot[]): ScreeningIndex {
    return buildIndex(snapshots, { reader: this.reader });
  }

  /** Builds the list files' index again from the catalog's current snapshots. */
  rebuildMain(reason: string): void {
    const started = process.hrtime.bigint();
    const snapshots = this.options.catalog.current();
    const main = this.indexOf(snapshots);
    this.main = main;
    // Counts and versions only: entries are names of people.
    this.options.logger.info(
      {
        reason,
        ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        entries: main.entries.length,
        names: main.names.length,
        snapshots: snapshots.map((s) => ({
          list: s.list,
          source: s.source,
          entryCount: s.entryCount,
          version: s.version.slice(0, 12),
        })),
        heapMb: Math.round(process.memoryUsage().heapUsed / 1e6),
      },
      'screening index built',
    );
  }

  /** Whether the list files' index is built and holds entries. */
  hasEntries(): boolean {
    return (this.main?.entries.length ?? 0) > 0;
  }

  /** The customer-derived internal list, rebuilt when a BLACK mark changed (it is small). */
  internalList(): InternalList {
    const { directory, clock } = this.options;
    if (!this.internal || this.internal.revision !== directory.revision) {
      const entries = directory.internalEntries();
      const snapshot = makeSnapshot(
        'INTERNAL_LIST',
        INTERNAL_CUSTOMERS_SOURCE,
        [Buffer.from(JSON.stringify(entries))],
        entries,
        clock().toISOString(),
      );
      this.internal = {
        revision: directory.revision,
        snapshot,
        index: this.indexOf([snapshot]),
        hashes: new Map(snapshot.entries.map((e) => [e.id, entryContentHash(e)])),
      };
    }
    return this.internal;
  }

  /** Both indexes; the list files' one is built at start, before anything screens. */
  all(): ScreeningIndex[] {
    return [this.main!, this.internalList().index];
  }

  /** The content hash of a listed entry, undefined when it is no longer listed (a function: it is passed on). */
  readonly entryHashOf = (source: string, entryId: string): string | undefined =>
    source === INTERNAL_CUSTOMERS_SOURCE
      ? this.internalList().hashes.get(entryId)
      : this.options.catalog.entryHash(source, entryId);

  /** The versions of the snapshots a result of `list` was screened against. */
  snapshotVersion(list: ScreeningList): string {
    const parts = this.options.catalog
      .current()
      .filter((s) => s.list === list)
      .map((s) => `${s.source}:${s.version.slice(0, 16)}`);
    if (list === 'INTERNAL_LIST')
      parts.push(`${INTERNAL_CUSTOMERS_SOURCE}:${this.internalList().snapshot.version.slice(0, 16)}`);
    return parts.sort().join(',') || 'none';
  }
}
