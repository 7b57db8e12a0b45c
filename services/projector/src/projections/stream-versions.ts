/**
 * The stream version each customer document of the live `customers` collection holds, as far as this
 * projector instance wrote or read it (0: known to have no document). It spares a read per customer
 * and fetch: on FerretDB v1 a read by `_id` costs about as much as the update itself (decision 0012;
 * the reads that remain go by `_id` lists: decision 0032).
 *
 * Valid only while this instance owns the customer's partition without a break: Kafka gives one writer
 * per partition, but after a rebalance another instance may have written the customer meanwhile, so
 * `clear()` runs on every group join. A handler notes the generation before it reads and hands it back
 * with what it learnt; a rebalance in between makes that stale, and it is dropped.
 *
 * A remembered version that is lower than the document's (a failed chunk, a gap) is still safe for a
 * chunk that continues the partition: the chunk's effects are `$set`s applied in order, so applying
 * them again over a newer state of the same run leaves that chunk's end state. Only a chunk that lies
 * wholly before the document's version could move it back, and such a chunk only comes after a
 * rebalance or a retry of a failed chunk, both of which drop the entries.
 */
export class StreamVersions {
  private readonly byCollection = new Map<string, Map<string, number>>();
  private current = 0;

  constructor(private readonly maxEntries = 1_000_000) {}

  /** Changes whenever the cache is cleared. */
  generation(): number {
    return this.current;
  }

  get(collection: string, streamId: string): number | undefined {
    return this.byCollection.get(collection)?.get(streamId);
  }

  /** Records versions learnt under `generation`; nothing if the cache was cleared since. */
  set(collection: string, versions: ReadonlyMap<string, number>, generation: number): void {
    if (generation !== this.current || versions.size === 0) return;
    let map = this.byCollection.get(collection);
    if (!map) {
      // A replay switched the live collection: what was known of the previous one no longer applies.
      this.byCollection.clear();
      map = new Map();
      this.byCollection.set(collection, map);
    }
    for (const [streamId, version] of versions) {
      map.delete(streamId); // insertion order is recency order: the oldest are evicted first
      map.set(streamId, version);
    }
    for (const streamId of map.keys()) {
      if (map.size <= this.maxEntries) break;
      map.delete(streamId);
    }
  }

  forget(collection: string, streamIds: Iterable<string>): void {
    const map = this.byCollection.get(collection);
    if (map) for (const id of streamIds) map.delete(id);
  }

  clear(): void {
    this.byCollection.clear();
    this.current++;
  }

  size(): number {
    let n = 0;
    for (const m of this.byCollection.values()) n += m.size;
    return n;
  }
}
