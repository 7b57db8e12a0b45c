import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  diffSnapshots,
  entryContentHash,
  type ListEntry,
  type ListSnapshot,
  type SnapshotDiff,
} from '@crs/screening-core';
import { Counter, Gauge, type Logger, type Registry } from '@crs/runtime';
import { demoListsConfig, loadSource, parseListsConfig, specLabel, type ListsConfig } from './list-sources';

/** A snapshot that replaced another (or appeared) on a load or refresh. */
export interface SnapshotChange {
  next: ListSnapshot;
  previous?: ListSnapshot;
  diff?: SnapshotDiff;
}

export interface ListCatalogOptions {
  /** LISTS_CONFIG_FILE; empty = the demo lists of `sharedDataDir`. */
  configFile: string;
  sharedDataDir: string;
  logger: Logger;
  metrics: Registry;
  clock: () => Date;
}

const key = (s: Pick<ListSnapshot, 'list' | 'source'>) => `${s.list}|${s.source}`;

/**
 * The list snapshots currently serving. A refresh re-reads the config and every source; a source that
 * fails (unreadable, corrupt) keeps its previous snapshot serving, is logged and counted in
 * `screening_list_refresh_failures_total`. Snapshot ages are exported as `screening_list_snapshot_age_seconds`
 * (time since the source was last read successfully, so a failing source shows as ageing).
 */
export class ListCatalog {
  private readonly snapshots = new Map<string, ListSnapshot>();
  private readonly lastSuccess = new Map<string, number>();
  private entriesByKey = new Map<string, ListEntry>();
  private readonly hashes = new Map<ListEntry, string>();
  private readonly failures: Counter<'source'>;

  constructor(private readonly opts: ListCatalogOptions) {
    this.failures = new Counter({
      name: 'screening_list_refresh_failures_total',
      help: 'List loads or refreshes that failed and left the previous snapshot serving',
      labelNames: ['source'],
      registers: [opts.metrics],
    });
    const snapshots = this.snapshots;
    const lastSuccess = this.lastSuccess;
    const clock = opts.clock;
    new Gauge({
      name: 'screening_list_snapshot_age_seconds',
      help: 'Seconds since each list source was last loaded successfully',
      labelNames: ['list', 'source'],
      registers: [opts.metrics],
      // Computed at scrape time, so the age keeps growing while refreshes fail.
      collect() {
        const now = clock().getTime();
        for (const [k, s] of snapshots)
          this.labels(s.list, s.source).set(Math.max(0, (now - (lastSuccess.get(k) ?? now)) / 1000));
      },
    });
  }

  current(): ListSnapshot[] {
    return [...this.snapshots.values()];
  }

  failureCount(): Promise<number> {
    return this.failures.get().then((m) => m.values.reduce((a, v) => a + v.value, 0));
  }

  /** Content hash of an entry of a serving snapshot (memoised per entry object). */
  entryHash(source: string, entryId: string): string | undefined {
    const entry = this.entriesByKey.get(`${source}|${entryId}`);
    if (!entry) return undefined;
    let h = this.hashes.get(entry);
    if (!h) {
      h = entryContentHash(entry);
      this.hashes.set(entry, h);
    }
    return h;
  }

  private async readConfig(): Promise<ListsConfig> {
    if (!this.opts.configFile) return demoListsConfig(this.opts.sharedDataDir);
    const text = await readFile(this.opts.configFile, 'utf8');
    return parseListsConfig(text, path.dirname(this.opts.configFile));
  }

  /** First load: every source must load, or the service does not start (screening half the lists would report false negatives). */
  async loadInitial(): Promise<SnapshotChange[]> {
    const config = await this.readConfig();
    const loadedAt = this.opts.clock().toISOString();
    const changes: SnapshotChange[] = [];
    for (const spec of config.sources) {
      let loaded: ListSnapshot[];
      try {
        loaded = await loadSource(spec, this.opts.sharedDataDir, loadedAt);
      } catch (err) {
        this.failures.labels(specLabel(spec)).inc();
        throw err;
      }
      for (const s of loaded) changes.push(this.install(s));
    }
    this.reindexEntries();
    return changes;
  }

  /** Re-reads every source; returns the snapshots whose content changed. Never throws. */
  async refresh(): Promise<SnapshotChange[]> {
    let config: ListsConfig;
    try {
      config = await this.readConfig();
    } catch (err) {
      this.opts.logger.error(
        { err: { message: (err as Error).message, code: (err as { code?: string }).code } },
        'list refresh failed: configuration unreadable; previous snapshots keep serving',
      );
      this.failures.labels('CONFIG').inc();
      return [];
    }
    const loadedAt = this.opts.clock().toISOString();
    const changes: SnapshotChange[] = [];
    for (const spec of config.sources) {
      let loaded: ListSnapshot[];
      try {
        loaded = await loadSource(spec, this.opts.sharedDataDir, loadedAt);
      } catch (err) {
        this.opts.logger.error(
          {
            source: specLabel(spec),
            err: { message: (err as Error).message, code: (err as { code?: string }).code },
          },
          'list refresh failed; the previous snapshot keeps serving',
        );
        this.failures.labels(specLabel(spec)).inc();
        continue;
      }
      for (const s of loaded) {
        const previous = this.snapshots.get(key(s));
        this.lastSuccess.set(key(s), this.opts.clock().getTime());
        if (previous && previous.version === s.version) continue;
        changes.push(this.install(s));
      }
    }
    if (changes.length > 0) this.reindexEntries();
    return changes;
  }

  private install(next: ListSnapshot): SnapshotChange {
    const previous = this.snapshots.get(key(next));
    this.snapshots.set(key(next), next);
    this.lastSuccess.set(key(next), this.opts.clock().getTime());
    return previous ? { next, previous, diff: diffSnapshots(previous, next) } : { next };
  }

  private reindexEntries(): void {
    const map = new Map<string, ListEntry>();
    for (const s of this.snapshots.values()) for (const e of s.entries) map.set(`${e.source}|${e.id}`, e);
    this.entriesByKey = map;
  }
}
