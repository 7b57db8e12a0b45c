import type { Kafka } from 'kafkajs';
import type { Logger, Registry } from '@crs/runtime';
import type { MessageSerde } from './serde';
import type { DecodedMessage } from './decoded-message';
import { StreamReader, logCatchUpProgress } from './stream-reader';
import { TransactionalProcessor } from './transactional-processor';
import { DecisionLock } from './decision-lock';
import {
  DeciderCore,
  STREAM_VERSION_HEADER,
  type DeciderCoreOptions,
  type StateSnapshotStore,
} from './decider-core';
import { headerString } from './decoded-message';
import type { DecidedEvent, Decision, StreamEvent, VersionedState } from './decider';

/** One topic a decider decides: commands, or messages of an upstream system. */
export interface DeciderInput<Command, T = unknown> {
  topic: string;
  /** The consumer group of the input's processor; its offsets commit with the decided events. */
  groupId: string;
  /** Check payloads against their registered schemas: for topics written outside this repository. */
  validate?: boolean;
  /** The message in the decider's terms; `T` is what the topic's messages decode to. */
  toDecision(message: DecodedMessage<T>): Decision<Command>;
}

/** Saved states read back before the catch-up (decision 0016). */
export interface RestoredStates<State> {
  /** Per partition, where folding the events topic starts (partitions not named fold from the start). */
  startOffsets: Map<number, bigint>;
  /** Writes new snapshots along with the decisions. */
  store: StateSnapshotStore<State>;
}

export interface DeciderShellOptions<Command, Event, State, NewEvent>
  extends DeciderCoreOptions<Command, Event, State, NewEvent> {
  kafka: Kafka;
  serde: MessageSerde;
  logger: Logger;
  metrics: Registry;
  /** Prefix of the throw-away consumer group of the reader that folds the events topic. */
  stateGroupPrefix: string;
  /** Transactional ids are `<prefix>-<input topic>-<partition>`: a new owner of a partition fences the old one. */
  transactionalIdPrefix: string;
  /** Co-partitioned with the events topic (same key, same partition count). */
  inputs: DeciderInput<Command>[];
  /**
   * Puts saved states into `states` before the catch-up and says where the catch-up starts; undefined
   * (or resolving to undefined): the whole events topic is folded and no snapshots are written.
   */
  restore?: (states: Map<string, State>) => Promise<RestoredStates<State> | undefined>;
  /**
   * How long a partition goes without a batch before it writes the snapshots its transactions left
   * behind in transactions of its own (decision 0081; default 5 s). Only with restored states.
   */
  idleSnapshotMs?: number;
}

/**
 * The shell around a pure decider (STYLE.md): state is folded from the decider's own event log (never
 * from read models), each fetched batch of an input is decided against it, and the decided events are
 * appended in the same Kafka transaction that commits the input offsets (TransactionalProcessor, the
 * exactly-once loop of decision 0013). Before the first batch of a partition, after every
 * (re)assignment, the partition's events are folded up to their end.
 *
 * With one input, partitions are decided concurrently, each with its own staged states. With several,
 * all of them append to the same streams: their decisions are serialised in-process, one batch at a
 * time from its decision until its transaction commits or aborts, so one running instance keeps
 * stream versions gap-free and unique.
 */
export class DeciderShell<
  Command,
  Event extends StreamEvent,
  State extends VersionedState,
  NewEvent extends DecidedEvent,
> {
  private readonly core: DeciderCore<Command, Event, State, NewEvent>;
  private readonly lock: DecisionLock | undefined;
  private reader: StreamReader<Event> | undefined;
  private readonly processors: TransactionalProcessor<unknown>[] = [];

  constructor(private readonly opts: DeciderShellOptions<Command, Event, State, NewEvent>) {
    this.core = new DeciderCore(opts);
    this.lock = opts.inputs.length > 1 ? new DecisionLock() : undefined;
  }

  isReady(): boolean {
    return this.processors.length === this.opts.inputs.length && this.processors.every((p) => p.isReady());
  }

  /** False while a batch of its reader or a processor has shown no sign of life for the stall bound (decision 0087). */
  isLive(): boolean {
    // Every one is asked, so each logs its own stall.
    const live = [this.reader?.isLive() ?? true, ...this.processors.map((p) => p.isLive())];
    return live.every(Boolean);
  }

  async start(): Promise<void> {
    const { kafka, serde, logger, metrics } = this.opts;
    const core = this.core;
    const restored = await this.opts.restore?.(core.states);
    if (restored) core.useSnapshots(restored.store);
    const reader = new StreamReader<Event>({
      kafka,
      serde,
      logger,
      metrics,
      topic: this.opts.eventsTopic,
      groupPrefix: this.opts.stateGroupPrefix,
      onMessage: (m) => core.fold(m.value, m.partition),
      // Once caught up, what the reader meets is mostly this instance's own committed decisions, which
      // `states` already holds: skipped by their stream-version header without parsing the payload.
      skip: (key, headers) => {
        const type = headerString(headers, 'type');
        if (type !== undefined && !core.folds(type)) return true;
        const version = Number(headerString(headers, STREAM_VERSION_HEADER));
        return Number.isInteger(version) && core.holds(key, version);
      },
      ...(restored ? { startOffsets: restored.startOffsets } : {}),
    });
    this.reader = reader;
    await reader.start();
    await reader.waitUntilCaughtUp(
      undefined,
      logCatchUpProgress(logger, 'rebuilding decider state from the event log'),
    );
    logger.info({ streams: core.states.size }, 'decider state rebuilt');
    const lock = this.lock;
    const processors = this.opts.inputs.map((input, lane) => {
      const owner = String(lane);
      return new TransactionalProcessor<unknown>({
        kafka,
        serde,
        logger,
        metrics,
        groupId: input.groupId,
        topic: input.topic,
        transactionalIdPrefix: this.opts.transactionalIdPrefix,
        // Serialised decisions are staged one batch at a time: one partition at a time.
        ...(lock ? { partitionsConsumedConcurrently: 1 } : {}),
        ...(input.validate ? { validate: true } : {}),
        handler: {
          process: async (messages, partition) => {
            const decisions = messages.map((m) => input.toDecision(m));
            if (lock) await lock.acquire(owner);
            return core.decideBatch(decisions, partition, lane, () => reader.position(partition));
          },
          // The staged states belong to the lock holder; another processor's callback must not touch them.
          committed: (partition) => {
            if (lock && !lock.isHeldBy(owner)) return;
            core.committed(partition, lane);
            lock?.release(owner);
          },
          aborted: (partition) => {
            if (lock && !lock.isHeldBy(owner)) return;
            core.aborted(partition, lane);
            lock?.release(owner);
          },
          beforePartition: async (partition) => reader.waitUntilCaughtUp([partition]),
          // The snapshots busy transactions left behind, written while the partition is idle (decision
          // 0081), by the first input's processor only (with several inputs, under the decision lock).
          ...(restored && lane === 0
            ? {
                idle: async (partition: number) => {
                  if (lock) await lock.acquire(owner);
                  const out = core.idleOutputs(partition, reader.position(partition), lane);
                  if (out.length === 0) lock?.release(owner);
                  return out;
                },
              }
            : {}),
        },
        ...(this.opts.idleSnapshotMs !== undefined ? { idleMs: this.opts.idleSnapshotMs } : {}),
      });
    });
    this.processors.push(...processors);
    for (const p of processors) await p.start();
  }

  async stop(): Promise<void> {
    for (const p of this.processors) await p.stop();
    await this.reader?.stop();
  }
}
