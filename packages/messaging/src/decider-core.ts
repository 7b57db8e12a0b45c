import type { OutgoingMessage } from './decoded-message';
import { deriveEventId } from './envelope';
import type { DecidedEvent, Decider, Decision, StreamEvent, VersionedState } from './decider';

/**
 * The Kafka header that carries an event's `streamVersion` (decimal text) next to its payload, so a
 * reader of the events topic can tell an event its state already holds without parsing the payload.
 * Set on every event a decider appends; events without it (appended before it existed) are parsed as
 * before.
 */
export const STREAM_VERSION_HEADER = 'streamVersion';

/**
 * The state snapshots of a decider (decision 0016) as the core drives them: states changed by folded
 * events and committed decisions are noted, and a decider transaction may carry snapshot records.
 */
export interface StateSnapshotStore<State> {
  /** A state changed by an event the reader folded, or by a committed decision. */
  changed(streamId: string, partition: number, version: number): void;
  /** The snapshot records to write in the transaction of a batch on `partition` (maybe none). */
  outputs(
    partition: number,
    staged: Map<string, State>,
    states: Map<string, State>,
    readerPosition: bigint | undefined,
  ): OutgoingMessage[];
  /** The batch's transaction committed; `states` already holds its decisions. */
  committed(partition: number, states: Map<string, State>, changed: Iterable<string>): void;
  aborted(partition: number): void;
}

export interface DeciderCoreOptions<Command, Event, State, NewEvent> {
  decider: Decider<Command, Event, State, NewEvent>;
  /** The topic the decided events are appended to, keyed by stream id. */
  eventsTopic: string;
  /** ISO date-time of a decision, read once per decided message. */
  now: () => string;
  /**
   * The envelope fields beyond the common ones, naming the event's aggregate (customerExtId, ...).
   * `state` is the stream's state before the decision.
   */
  eventFields?: (decision: Decision<Command>, state: State, event: NewEvent) => Record<string, unknown>;
  /**
   * A command the decider rejected (it threw): the events that record the rejection, or undefined to
   * let the error fail the batch (its transaction aborts and the batch is processed again).
   */
  rejected?: (error: unknown, decision: Decision<Command>) => NewEvent[] | undefined;
  /** A decision that decided nothing (already applied, or nothing to do): for metrics and logs. */
  decidedNothing?: (decision: Decision<Command>, state: State) => void;
  /**
   * Kafka headers of an event beyond `type` and `streamVersion`: what a reader of the events topic may
   * decide on without parsing the payload (the customer decider's `listPurpose`).
   */
  eventHeaders?: (event: NewEvent) => Record<string, string> | undefined;
  /** The event types folded into state; other types on the events topic are skipped. Every type when omitted. */
  eventTypes?: readonly string[];
}

/**
 * The in-memory half of a decider shell, without Kafka: the state of every stream folded from its
 * committed events, the decisions of a batch staged apart from it until the batch's transaction
 * commits, and the envelope of each decided event (id derived from the command id and its position,
 * the stream's next version, time, correlation and causation). Batches run in lanes (an input topic)
 * and partitions; each (lane, partition) has its own staged states.
 */
export class DeciderCore<
  Command,
  Event extends StreamEvent,
  State extends VersionedState,
  NewEvent extends DecidedEvent,
> {
  /** The state of every stream: committed decisions and folded events only. */
  readonly states = new Map<string, State>();
  private readonly staged = new Map<string, Map<string, State>>();
  private readonly folded: ReadonlySet<string> | undefined;
  private snapshots: StateSnapshotStore<State> | undefined;

  constructor(private readonly opts: DeciderCoreOptions<Command, Event, State, NewEvent>) {
    this.folded = opts.eventTypes ? new Set(opts.eventTypes) : undefined;
  }

  /** Snapshots from now on: their store is told of every changed state and adds to the transactions. */
  useSnapshots(store: StateSnapshotStore<State>): void {
    this.snapshots = store;
  }

  /**
   * Whether the state of `streamId` already holds the event with `version` (a committed decision, or an
   * event folded before): `fold` would skip it, so the reader need not decode it.
   */
  holds(streamId: string, version: number): boolean {
    const current = this.states.get(streamId);
    return current !== undefined && version <= current.version;
  }

  /** Whether `fold` folds events of this type (every type when the options name none). */
  folds(type: string): boolean {
    return !this.folded || this.folded.has(type);
  }

  /** An event read from the log (the catch-up): folded unless the stream's state already holds it. */
  fold(event: Event, partition: number): void {
    if (this.folded && !this.folded.has(event.type)) return;
    const current = this.states.get(event.streamId) ?? this.opts.decider.initialState();
    if (event.streamVersion <= current.version) return;
    const next = this.opts.decider.evolve(current, event);
    this.states.set(event.streamId, next);
    this.snapshots?.changed(event.streamId, partition, next.version);
  }

  /**
   * Decides a batch of one partition in order and returns what its transaction writes: the events
   * (and snapshot records). Nothing changes `states` until `committed`. `readerPosition` says how far
   * the events reader has folded the partition; it is read in the same synchronous step as the outputs.
   */
  decideBatch(
    decisions: Decision<Command>[],
    partition: number,
    lane = 0,
    readerPosition?: () => bigint | undefined,
  ): OutgoingMessage[] {
    const { decider, eventsTopic } = this.opts;
    const stage = new Map<string, State>();
    this.staged.set(slot(lane, partition), stage);
    const out: OutgoingMessage[] = [];
    for (const decision of decisions) {
      const state =
        stage.get(decision.streamId) ?? this.states.get(decision.streamId) ?? decider.initialState();
      const now = this.opts.now();
      let decided: NewEvent[];
      try {
        decided = decider.decide(decision.command, state, { now });
      } catch (err) {
        const recorded = this.opts.rejected?.(err, decision);
        if (!recorded) throw err;
        decided = recorded;
      }
      if (decided.length === 0) this.opts.decidedNothing?.(decision, state);
      let next = state;
      decided.forEach((e, i) => {
        const event = this.envelope(decision, state, e, i, now);
        next = decider.evolve(next, event);
        out.push({
          topic: eventsTopic,
          key: decision.streamId,
          type: e.type,
          value: event,
          headers: { ...this.opts.eventHeaders?.(e), [STREAM_VERSION_HEADER]: String(event.streamVersion) },
        });
      });
      stage.set(decision.streamId, next);
    }
    if (this.snapshots)
      out.push(...this.snapshots.outputs(partition, stage, this.states, readerPosition?.()));
    return out;
  }

  /**
   * What an idle partition writes on its own (no batch under way, decision 0081): the snapshots of the
   * states its busy transactions left behind, or none (no snapshots, none due). `committed` or `aborted`
   * follows as for a batch.
   */
  idleOutputs(partition: number, readerPosition: bigint | undefined, lane = 0): OutgoingMessage[] {
    if (!this.snapshots) return [];
    const out = this.snapshots.outputs(partition, new Map(), this.states, readerPosition);
    if (out.length > 0) this.staged.set(slot(lane, partition), new Map());
    return out;
  }

  /** The batch's transaction committed (or it emitted nothing): its decisions join `states`. */
  committed(partition: number, lane = 0): void {
    const key = slot(lane, partition);
    const stage = this.staged.get(key) ?? new Map<string, State>();
    for (const [id, s] of stage) {
      const current = this.states.get(id);
      if (!current || current.version < s.version) this.states.set(id, s);
    }
    this.staged.delete(key);
    this.snapshots?.committed(partition, this.states, stage.keys());
  }

  /** The batch's transaction aborted: its decisions are forgotten (the batch is processed again). */
  aborted(partition: number, lane = 0): void {
    this.staged.delete(slot(lane, partition));
    this.snapshots?.aborted(partition);
  }

  private envelope(
    decision: Decision<Command>,
    state: State,
    e: NewEvent,
    index: number,
    now: string,
  ): Event {
    // The one place an event's envelope is built: the stream's versions follow each other without gaps.
    // Which envelope type it is (its own fields come from eventFields) is the decider's to say.
    return {
      eventId: deriveEventId(decision.commandId, index),
      type: e.type,
      streamId: decision.streamId,
      streamVersion: state.version + index + 1,
      occurredAt: now,
      correlationId: decision.correlationId,
      causationId: decision.commandId,
      businessUnit: decision.businessUnit,
      ...this.opts.eventFields?.(decision, state, e),
      data: e.data,
    } as StreamEvent as Event;
  }
}

function slot(lane: number, partition: number): string {
  return `${lane}:${partition}`;
}
