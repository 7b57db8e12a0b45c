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

/** Bounded, expiring, least-recently-used cache of unwrapped data keys, by streamId. */
export class DataKeyCache {
  private readonly entries = new Map<string, { key: DataKey; expiresAt: number }>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(opts: DataKeyCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  get(streamId: string): DataKey | undefined {
    const entry = this.entries.get(streamId);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.drop(streamId);
      return undefined;
    }
    // Re-inserted: Map order is the recency order.
    this.entries.delete(streamId);
    this.entries.set(streamId, entry);
    return entry.key;
  }

  set(streamId: string, key: DataKey): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(streamId);
    this.entries.set(streamId, { key, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.drop(oldest);
    }
  }

  /**
   * Forgets a key. Its bytes are not overwritten: a caller may be using the same buffer in an encryption
   * right now, and V8 and OpenSSL keep copies of their own anyway; the process forgets it at the next GC.
   */
  drop(streamId: string): void {
    this.entries.delete(streamId);
  }

  clear(): void {
    this.entries.clear();
  }
}
