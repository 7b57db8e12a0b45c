import type { Kafka } from 'kafkajs';
import { Counter, type Logger, type Registry } from '@crs/runtime';
import type {
  ArchiveOperationCommand,
  OperationData,
  OperationEvent,
  OperationTopicEvent,
} from '@crs/contracts';
import {
  StreamReader,
  TransactionalProcessor,
  deriveEventId,
  streamKey,
  type DecodedMessage,
  type MessageSerde,
  type OutgoingMessage,
  type TopicNames,
} from '@crs/messaging';
import { decide, type NewOperationEvent, type OperationInput } from '../domain/operation-decider';
import { evolve, initialState, type OperationState } from '../domain/operation-state';

/** One decision's input with what the envelope of its events needs. */
interface Pending {
  commandId: string;
  correlationId: string;
  streamId: string;
  businessUnit: string;
  operationExtId: string;
  input: OperationInput;
}

/**
 * A mutual exclusion between the two processors: ingest and commands both append to the same
 * operation streams, and a stream version must be decided against every event committed before it.
 * Held from a batch's decision until its transaction committed or aborted.
 */
class DecisionLock {
  private tail: Promise<void> = Promise.resolve();
  private holder: { owner: string; release: () => void } | undefined;

  async acquire(owner: string): Promise<void> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    await previous;
    this.holder = { owner, release };
  }

  isHeldBy(owner: string): boolean {
    return this.holder?.owner === owner;
  }

  /** Only the owner releases: a processor that failed before acquiring must not free another's lock. */
  release(owner: string): boolean {
    if (this.holder?.owner !== owner) return false;
    const { release } = this.holder;
    this.holder = undefined;
    release();
    return true;
  }
}

/**
 * The operation decider's shell: state folded from the operation event log; upstream operations
 * (ingest topic) and archive commands (command topic) are decided against it by two transactional
 * processors, each appending events in the transaction that commits its input offsets. The two inputs
 * are co-partitioned with the event log (same key, same partition count), and decisions of both are
 * serialised in-process, so one running instance keeps stream versions gap-free and unique.
 */
export class OperationDeciderShell {
  private readonly states = new Map<string, OperationState>();
  private staged = new Map<string, OperationState>();
  private readonly lock = new DecisionLock();
  private reader: StreamReader<OperationTopicEvent> | undefined;
  private readonly processors: TransactionalProcessor<unknown>[] = [];
  private readonly ignored: Counter;

  constructor(
    private readonly deps: {
      kafka: Kafka;
      serde: MessageSerde;
      logger: Logger;
      metrics: Registry;
      topics: TopicNames;
      prefix: string;
      consumerGroup: string;
      transactionalIdPrefix: string;
      clock: () => Date;
    },
  ) {
    this.ignored = new Counter({
      name: 'operation_inputs_without_effect_total',
      help: 'Operation inputs that decided nothing, by reason',
      labelNames: ['reason'],
      registers: [deps.metrics],
    });
  }

  isReady(): boolean {
    return this.processors.length === 2 && this.processors.every((p) => p.isReady());
  }

  operations(): number {
    return this.states.size;
  }

  private apply(event: OperationTopicEvent): void {
    // Alerts share the topic but are not part of an operation's versioned stream.
    if (event.type !== 'OperationRegistered' && event.type !== 'OperationArchived') return;
    const current = this.states.get(event.streamId) ?? initialState();
    if (event.streamVersion <= current.version) return;
    this.states.set(event.streamId, evolve(current, event));
  }

  private async decideBatch(owner: string, items: Pending[]): Promise<OutgoingMessage[]> {
    await this.lock.acquire(owner);
    const stage = new Map<string, OperationState>();
    this.staged = stage;
    const out: OutgoingMessage[] = [];
    const now = this.deps.clock().toISOString();
    for (const item of items) {
      const state = stage.get(item.streamId) ?? this.states.get(item.streamId) ?? initialState();
      const decided: NewOperationEvent[] = decide(item.input, state);
      if (decided.length === 0) {
        const reason =
          item.input.type === 'ReceiveOperation'
            ? 'same_content'
            : state.exists
              ? 'already_archived'
              : 'unknown_operation';
        this.ignored.labels(reason).inc();
        if (reason === 'unknown_operation') {
          this.deps.logger.warn(
            { streamId: item.streamId },
            'archive requested for an operation that is not registered; nothing recorded',
          );
        }
        continue;
      }
      let next = state;
      decided.forEach((e, i) => {
        const customerExtId =
          e.type === 'OperationRegistered'
            ? e.data.operation.customerExtId
            : (state.operation?.customerExtId ?? '');
        const event = {
          eventId: deriveEventId(item.commandId, i),
          type: e.type,
          streamId: item.streamId,
          streamVersion: state.version + i + 1,
          occurredAt: now,
          correlationId: item.correlationId,
          causationId: item.commandId,
          businessUnit: item.businessUnit,
          operationExtId: item.operationExtId,
          customerExtId,
          data: e.data,
        } as OperationEvent;
        next = evolve(next, event);
        out.push({ topic: this.deps.topics.operationEvents, key: item.streamId, type: e.type, value: event });
      });
      stage.set(item.streamId, next);
    }
    return out;
  }

  private committed(owner: string): void {
    // The staged map belongs to the lock holder; another processor's callback must not touch it.
    if (!this.lock.isHeldBy(owner)) return;
    for (const [id, s] of this.staged) {
      const current = this.states.get(id);
      if (!current || current.version < s.version) this.states.set(id, s);
    }
    this.staged = new Map();
    this.lock.release(owner);
  }

  private aborted(owner: string): void {
    if (!this.lock.isHeldBy(owner)) return;
    this.staged = new Map();
    this.lock.release(owner);
  }

  private fromIngest(m: DecodedMessage<OperationData>): Pending {
    const op = m.value;
    const streamId = streamKey(op.businessUnit, op.extId);
    if (m.key !== streamId) {
      // The ordering guarantee of one operation rests on the key; a wrong key is the publisher's bug.
      this.deps.logger.warn(
        { partition: m.partition, offset: m.offset, expectedKey: streamId },
        'operation published under an unexpected key',
      );
    }
    // Kafka coordinates identify an ingest message for good: a re-processed batch derives the same event ids.
    const commandId = `ingest:${m.partition}:${m.offset}`;
    return {
      commandId,
      correlationId: commandId,
      streamId,
      businessUnit: op.businessUnit,
      operationExtId: op.extId,
      input: { type: 'ReceiveOperation', operation: op },
    };
  }

  private fromCommand(m: DecodedMessage<ArchiveOperationCommand>): Pending {
    const c = m.value;
    return {
      commandId: c.commandId,
      correlationId: c.correlationId,
      streamId: c.streamId,
      businessUnit: c.businessUnit,
      operationExtId: c.operationExtId,
      input: c,
    };
  }

  async start(): Promise<void> {
    const { kafka, serde, logger, metrics, topics, prefix } = this.deps;
    this.reader = new StreamReader<OperationTopicEvent>({
      kafka,
      serde,
      logger,
      topic: topics.operationEvents,
      groupPrefix: `${prefix}operation-decider-state`,
      onMessage: (m) => this.apply(m.value),
    });
    await this.reader.start();
    await this.reader.waitUntilCaughtUp();
    logger.info({ operations: this.states.size }, 'operation decider state rebuilt');
    const reader = this.reader;
    const make = <T>(
      owner: 'ingest' | 'commands',
      topic: string,
      toPending: (m: DecodedMessage<T>) => Pending,
    ) =>
      new TransactionalProcessor<T>({
        kafka,
        serde,
        logger,
        metrics,
        groupId: `${prefix}${this.deps.consumerGroup}-${owner}`,
        topic,
        transactionalIdPrefix: `${prefix}${this.deps.transactionalIdPrefix}`,
        // Decisions are serialised by the lock and staged in one map: one partition at a time.
        partitionsConsumedConcurrently: 1,
        // Upstream systems write the ingest topic: their payloads are checked against the schema.
        validate: owner === 'ingest',
        handler: {
          process: (messages) => this.decideBatch(owner, messages.map(toPending)),
          committed: () => this.committed(owner),
          aborted: () => this.aborted(owner),
          beforePartition: async (p) => reader.waitUntilCaughtUp([p]),
        },
      });
    const ingest = make<OperationData>('ingest', topics.operationIngest, (m) => this.fromIngest(m));
    const commands = make<ArchiveOperationCommand>('commands', topics.operationCommands, (m) =>
      this.fromCommand(m),
    );
    this.processors.push(
      ingest as TransactionalProcessor<unknown>,
      commands as TransactionalProcessor<unknown>,
    );
    await ingest.start();
    await commands.start();
  }

  async stop(): Promise<void> {
    for (const p of this.processors) await p.stop();
    await this.reader?.stop();
  }
}
