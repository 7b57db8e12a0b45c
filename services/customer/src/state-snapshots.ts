import {
  MessageSerde,
  type DecodedMessage,
  type OutgoingMessage,
  type RegistrySettings,
  type SchemaDoc,
  type StateSnapshotStore,
} from '@crs/messaging';
import type { CustomerState } from './domain/customer-state';

/**
 * Bump whenever CustomerState (or what evolve() folds into it) changes shape: snapshots of another
 * format are ignored, the partition is folded from the whole log and snapshotted again.
 */
export const SNAPSHOT_FORMAT = 1;
export const SNAPSHOT_TYPE = 'CustomerStateSnapshot';
export const SNAPSHOT_SUBJECT = 'crs.snapshots.CustomerStateSnapshot';

/**
 * One record of the snapshot topic (key = streamId). `foldFrom` is the checkpoint of the partition at
 * the transaction that wrote it: every event of the events partition before that offset is reflected
 * in the partition's newest snapshots (null: no such offset yet, a restart folds the whole partition).
 * Only the partition's newest record counts: compaction never removes the newest record of a log.
 */
export interface StateSnapshot {
  format: number;
  streamId: string;
  state: CustomerState;
  foldFrom: string | null;
}

/** Deliberately loose: the snapshot is the decider's private cache, checked by format on reading. */
export const snapshotSchema: SchemaDoc = {
  title: SNAPSHOT_TYPE,
  type: 'object',
  required: ['format', 'streamId', 'state', 'foldFrom'],
  properties: {
    format: { type: 'integer' },
    streamId: { type: 'string' },
    state: { type: 'object' },
    foldFrom: { type: ['string', 'null'] },
  },
};

const CORRUPT = Symbol('corrupt snapshot');

/**
 * Reads snapshots without the registry: one JSON.parse after the 5-byte wire header, and a record that
 * does not parse is reported (its partition is then folded in full) rather than skipped.
 */
export class SnapshotSerde extends MessageSerde {
  constructor(settings: RegistrySettings) {
    super(settings);
  }

  override async decode<T>(buffer: Buffer): Promise<T> {
    try {
      if (buffer.length < 5 || buffer[0] !== 0) return CORRUPT as T;
      return JSON.parse(buffer.subarray(5).toString('utf8')) as T;
    } catch {
      return CORRUPT as T;
    }
  }
}

function usable(v: unknown, key: string): v is StateSnapshot {
  const s = v as StateSnapshot;
  return (
    typeof s === 'object' &&
    s !== null &&
    s.format === SNAPSHOT_FORMAT &&
    s.streamId === key &&
    typeof s.state === 'object' &&
    s.state !== null &&
    Number.isInteger(s.state.version) &&
    (s.foldFrom === null || /^\d+$/.test(String(s.foldFrom)))
  );
}

interface PartitionLoad {
  states: Map<string, CustomerState>;
  /** The newest record's checkpoint; undefined when unusable (old format, null, or no record). */
  foldFrom?: bigint;
  corrupt: boolean;
}

/**
 * The decider's bookkeeping of its state snapshots. On start the snapshot topic is read to its end
 * (load/finishLoad) and the events log is folded from each partition's checkpoint on. Afterwards the
 * states changed on a partition (by its decisions, or by events the reader folded) are collected, and
 * the first decider transaction on the partition after `intervalMs` writes their snapshots, at most
 * `maxPerTransaction` of them, in the SAME transaction as its events: a snapshot never runs ahead of
 * the log, and the transactional id that fences a previous owner of the command partition fences its
 * snapshots too. A customer decided several times within the interval (import, assessment, screening
 * results) is written once. When no changed state of the partition is left behind, the transaction's
 * records carry the reader's position as the new checkpoint; while some are, the next transactions
 * go on writing them without waiting for the interval.
 */
export class StateSnapshots implements StateSnapshotStore<CustomerState> {
  /** Version of each customer's newest snapshot this instance read or wrote. */
  private readonly written = new Map<string, number>();
  /** Per events partition: customers whose state is newer than their newest snapshot. */
  private readonly dirty = new Map<number, Set<string>>();
  /** Per partition: the newest valid checkpoint (read or written). */
  private readonly checkpoints = new Map<number, bigint>();
  private readonly pending = new Map<number, { versions: [string, number][]; checkpoint?: bigint }>();
  /** Per partition: when snapshots were last written, and whether changed states were left behind. */
  private readonly lastWritten = new Map<number, number>();
  private readonly draining = new Set<number>();
  private loading: Map<number, PartitionLoad> | undefined = new Map();

  constructor(
    private readonly opts: {
      topic: string;
      maxPerTransaction: number;
      intervalMs: number;
      now?: () => number;
    },
  ) {}

  /** A record of the snapshot topic, while loading. */
  load(m: DecodedMessage<unknown>): void {
    const loading = this.loading;
    if (!loading) return;
    let p = loading.get(m.partition);
    if (!p) {
      p = { states: new Map(), corrupt: false };
      loading.set(m.partition, p);
    }
    if ((m.value as unknown) === CORRUPT) {
      p.corrupt = true;
      return;
    }
    if (!usable(m.value, m.key)) {
      p.foldFrom = undefined;
      return;
    }
    const s = m.value;
    const known = p.states.get(s.streamId);
    if (!known || known.version <= s.state.version) p.states.set(s.streamId, s.state);
    p.foldFrom = s.foldFrom === null ? undefined : BigInt(s.foldFrom);
  }

  /**
   * Ends loading: puts the states of every partition with a valid checkpoint into `states` and returns
   * where to start folding the events log in those partitions (the others are folded from the start).
   * A checkpoint past the end of its events partition (`eventsEnds`) belongs to another log (the
   * events topic was recreated): that partition is folded from the start too.
   */
  finishLoad(
    states: Map<string, CustomerState>,
    eventsEnds?: Map<number, bigint>,
  ): {
    startOffsets: Map<number, bigint>;
    loaded: number;
    ignoredPartitions: number[];
  } {
    const startOffsets = new Map<number, bigint>();
    const ignoredPartitions: number[] = [];
    let loaded = 0;
    for (const [partition, p] of this.loading ?? []) {
      const end = eventsEnds?.get(partition);
      if (p.corrupt || p.foldFrom === undefined || (end !== undefined && p.foldFrom > end)) {
        ignoredPartitions.push(partition);
        continue;
      }
      for (const [id, state] of p.states) {
        states.set(id, state);
        this.written.set(id, state.version);
        loaded++;
      }
      startOffsets.set(partition, p.foldFrom);
      this.checkpoints.set(partition, p.foldFrom);
    }
    this.loading = undefined;
    return { startOffsets, loaded, ignoredPartitions };
  }

  /** A state changed by an event the reader folded, or by a committed decision. */
  changed(id: string, partition: number, version: number): void {
    if (version <= (this.written.get(id) ?? 0)) return;
    let set = this.dirty.get(partition);
    if (!set) {
      set = new Set();
      this.dirty.set(partition, set);
    }
    set.add(id);
  }

  /**
   * The snapshot records of a decider transaction on `partition` (none until the interval has passed):
   * the changed states, those this transaction changes (`staged`) first, up to maxPerTransaction.
   * `readerPosition` is how far the events reader has folded the partition; it must be read in the
   * same synchronous step as this call.
   */
  outputs(
    partition: number,
    staged: Map<string, CustomerState>,
    states: Map<string, CustomerState>,
    readerPosition: bigint | undefined,
  ): OutgoingMessage[] {
    const now = (this.opts.now ?? Date.now)();
    const due =
      this.draining.has(partition) ||
      now - (this.lastWritten.get(partition) ?? -Infinity) >= this.opts.intervalMs;
    if (!due) return [];
    const chosen = new Map<string, CustomerState>();
    let budget = this.opts.maxPerTransaction;
    let leftBehind = false;
    const take = (id: string, state: CustomerState | undefined) => {
      if (!state || chosen.has(id)) return;
      if (budget-- <= 0) leftBehind = true;
      else chosen.set(id, state);
    };
    for (const [id, state] of staged) take(id, state);
    for (const id of this.dirty.get(partition) ?? []) {
      if (leftBehind) break;
      take(id, states.get(id));
    }
    if (chosen.size === 0) return [];
    const checkpoint = leftBehind ? undefined : (readerPosition ?? 0n);
    const foldFrom = checkpoint ?? this.checkpoints.get(partition);
    const versions: [string, number][] = [];
    const out: OutgoingMessage[] = [];
    for (const [id, state] of chosen) {
      versions.push([id, state.version]);
      const value: StateSnapshot = {
        format: SNAPSHOT_FORMAT,
        streamId: id,
        state,
        foldFrom: foldFrom === undefined ? null : foldFrom.toString(),
      };
      out.push({ topic: this.opts.topic, key: id, type: SNAPSHOT_TYPE, value });
    }
    this.pending.set(partition, { versions, ...(checkpoint !== undefined ? { checkpoint } : {}) });
    return out;
  }

  /**
   * The transaction on `partition` committed (`states` already holds its decisions): its snapshots
   * are the newest, and the states it `changed` without a snapshot wait for a later one.
   */
  committed(partition: number, states: Map<string, CustomerState>, changed: Iterable<string>): void {
    const p = this.pending.get(partition);
    this.pending.delete(partition);
    const dirty = this.dirty.get(partition);
    if (p) {
      for (const [id, version] of p.versions) {
        if (version > (this.written.get(id) ?? 0)) this.written.set(id, version);
        if ((states.get(id)?.version ?? 0) <= version) dirty?.delete(id);
      }
      if (p.checkpoint !== undefined) this.checkpoints.set(partition, p.checkpoint);
      this.lastWritten.set(partition, (this.opts.now ?? Date.now)());
      if (p.checkpoint === undefined) this.draining.add(partition);
      else this.draining.delete(partition);
    }
    for (const id of changed) {
      const state = states.get(id);
      if (state) this.changed(id, partition, state.version);
    }
  }

  aborted(partition: number): void {
    this.pending.delete(partition);
  }

  /** Changed states not yet snapshotted (all partitions). */
  backlog(): number {
    let n = 0;
    for (const s of this.dirty.values()) n += s.size;
    return n;
  }
}
