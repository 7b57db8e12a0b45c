import type { QueueEntry } from './delivery-store';

export const laneOf = (d: { streamId: string; endpointId: string }): string =>
  `${d.streamId}|${d.endpointId}`;

/**
 * This process's view of which lanes (customer and endpoint) have deliveries in the retry queue: a
 * delivery taken from a consumed batch is sent straight away only when its lane has none, otherwise it
 * joins the queue behind them (order per customer and endpoint).
 *
 * The view is kept from this process's own queue writes and refreshed from the queue now and then
 * (`replace`), which also brings in what others wrote (a redelivery through the API or the CLI, another
 * instance on MongoDB). Changes made while a refresh read the queue are applied again on top of what it
 * read, so a refresh never forgets an entry written meanwhile.
 */
export class QueuedLanes {
  private readonly byLane = new Map<string, Set<string>>();
  private readonly laneOfEntry = new Map<string, string>();
  private seq = 0;
  private readonly recent = new Map<string, { seq: number; lane?: string }>();
  private refreshesRunning = 0;

  has(lane: string): boolean {
    return this.byLane.has(lane);
  }

  get size(): number {
    return this.laneOfEntry.size;
  }

  add(entry: Pick<QueueEntry, '_id' | 'streamId' | 'endpointId'>): void {
    const lane = laneOf(entry);
    this.put(entry._id, lane);
    this.remember(entry._id, lane);
  }

  remove(id: string): void {
    this.drop(id);
    this.remember(id, undefined);
  }

  /** Starts a refresh: call before reading the queue, then `replace` with what was read. */
  beginRefresh(): number {
    this.refreshesRunning += 1;
    return ++this.seq;
  }

  replace(startedAt: number, entries: readonly Pick<QueueEntry, '_id' | 'streamId' | 'endpointId'>[]): void {
    this.byLane.clear();
    this.laneOfEntry.clear();
    for (const e of entries) this.put(e._id, laneOf(e));
    for (const [id, change] of this.recent) {
      if (change.seq < startedAt) continue;
      if (change.lane) this.put(id, change.lane);
      else this.drop(id);
    }
    this.endRefresh();
  }

  /** Ends a refresh that failed (nothing replaced). */
  endRefresh(): void {
    this.refreshesRunning = Math.max(0, this.refreshesRunning - 1);
    if (this.refreshesRunning === 0) this.recent.clear();
  }

  private remember(id: string, lane: string | undefined): void {
    if (this.refreshesRunning > 0) this.recent.set(id, { seq: this.seq, ...(lane ? { lane } : {}) });
  }

  private put(id: string, lane: string): void {
    this.laneOfEntry.set(id, lane);
    const ids = this.byLane.get(lane) ?? new Set<string>();
    ids.add(id);
    this.byLane.set(lane, ids);
  }

  private drop(id: string): void {
    const lane = this.laneOfEntry.get(id);
    if (lane === undefined) return;
    this.laneOfEntry.delete(id);
    const ids = this.byLane.get(lane);
    ids?.delete(id);
    if (ids?.size === 0) this.byLane.delete(lane);
  }
}
