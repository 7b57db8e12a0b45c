import { LRUCache } from 'lru-cache';
import type { DataKey } from './field-cipher';

export interface DataKeyCacheOptions {
  /** Most keys held; the least recently used goes first (default 10,000). 0 turns the cache off. */
  maxEntries?: number;
  /**
   * How long an unwrapped key is used without looking at the store again (default 60 s). This bounds how
   * long another process still reads (and writes) a customer's data after an erasure: docs/privacy.md.
   */
  ttlMs?: number;
  /** Milliseconds now; injectable for tests. */
  now?: () => number;
}

/**
 * Bounded, expiring, least-recently-used cache of unwrapped data keys, by streamId, on `lru-cache` (a
 * `Map` re-inserted for recency and evicted through `keys().next()` cost 10-13 µs per new key once full:
 * V8 skips the deleted entries at the front of the map on every eviction; lru-cache evicts in O(1)).
 */
export class DataKeyCache {
  private readonly entries: LRUCache<string, { key: DataKey; expiresAt: number }> | undefined;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(opts: DataKeyCacheOptions = {}) {
    const maxEntries = opts.maxEntries ?? 10_000;
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.now = opts.now ?? Date.now;
    this.entries = maxEntries > 0 ? new LRUCache({ max: maxEntries }) : undefined;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  get(streamId: string): DataKey | undefined {
    const entry = this.entries?.get(streamId);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.drop(streamId);
      return undefined;
    }
    return entry.key;
  }

  set(streamId: string, key: DataKey): void {
    this.entries?.set(streamId, { key, expiresAt: this.now() + this.ttlMs });
  }

  /**
   * Forgets a key. Its bytes are not overwritten: a caller may be using the same buffer in an encryption
   * right now, and V8 and OpenSSL keep copies of their own anyway; the process forgets it at the next GC.
   */
  drop(streamId: string): void {
    this.entries?.delete(streamId);
  }

  clear(): void {
    this.entries?.clear();
  }
}
