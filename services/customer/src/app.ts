import {
  Health,
  createMetricsRegistry,
  startHealthServer,
  Counter,
  Gauge,
  type HealthServer,
  type Logger,
} from '@crs/runtime';
import type { CustomerCommand, CustomerEvent } from '@crs/contracts';
import {
  StreamReader,
  TransactionalProcessor,
  deriveEventId,
  setUpMessaging,
  type DecodedMessage,
  type Messaging,
  type OutgoingMessage,
} from '@crs/messaging';
import { decide } from './domain/customer-decider';
import { evolve, initialState, type CustomerState } from './domain/customer-state';
import { CustomerCommandRejectedError } from './domain/customer-errors';
import type { CustomerConfig } from './config';
import {
  SNAPSHOT_SUBJECT,
  SNAPSHOT_TYPE,
  SnapshotSerde,
  StateSnapshots,
  snapshotSchema,
} from './state-snapshots';

export interface CustomerService {
  start(): Promise<void>;
  stop(): Promise<void>;
  healthPort(): number;
}

/**
 * The customer decider's shell: state is folded from the customer event log (never from the read
 * models), each batch of commands is decided against it, and the resulting events are appended in the
 * same Kafka transaction that commits the command offsets. With STATE_SNAPSHOTS the same transaction
 * also writes the folded states it changed to a compacted snapshot topic, and a restart reads those
 * snapshots and folds only the log's tail (decision 0016).
 */
export function buildCustomerService(
  config: CustomerConfig,
  logger: Logger,
  clock: () => Date = () => new Date(),
): CustomerService {
  const metrics = createMetricsRegistry('customer');
  const health = new Health();
  const rejected = new Counter({
    name: 'commands_rejected_total',
    help: 'Commands rejected by a business rule',
    labelNames: ['code'],
    registers: [metrics],
  });
  const snapshotBacklog = new Gauge({
    name: 'state_snapshot_backlog',
    help: 'Customer states changed since their newest snapshot (written with the next decisions)',
    registers: [metrics],
    collect() {
      this.set(snapshots?.backlog() ?? 0);
    },
  });
  void snapshotBacklog;
  const states = new Map<string, CustomerState>();
  let snapshots: StateSnapshots | undefined;
  const staged = new Map<number, Map<string, CustomerState>>();
  let reader: StreamReader<CustomerEvent> | undefined;
  let processor: TransactionalProcessor<CustomerCommand> | undefined;
  let server: HealthServer | undefined;
  let eventsTopic = '';

  const apply = (event: CustomerEvent, partition: number) => {
    const current = states.get(event.streamId) ?? initialState();
    if (event.streamVersion <= current.version) return;
    const next = evolve(current, event);
    states.set(event.streamId, next);
    snapshots?.changed(event.streamId, partition, next.version);
  };

  const decideBatch = async (
    messages: DecodedMessage<CustomerCommand>[],
    partition: number,
  ): Promise<OutgoingMessage[]> => {
    const stage = new Map<string, CustomerState>();
    staged.set(partition, stage);
    const out: OutgoingMessage[] = [];
    for (const m of messages) {
      const command = m.value;
      const state = stage.get(command.streamId) ?? states.get(command.streamId) ?? initialState();
      const now = clock().toISOString();
      let decided;
      try {
        decided = decide(command, state, { now });
      } catch (err) {
        if (!(err instanceof CustomerCommandRejectedError)) throw err;
        rejected.labels(err.code).inc();
        decided = [
          {
            type: 'CustomerCommandRejected' as const,
            data: {
              commandType: command.type,
              errorCode: err.code,
              errorDescription: err.message,
              ...(err.field ? { field: err.field } : {}),
            },
          },
        ];
      }
      let next = state;
      decided.forEach((e, i) => {
        const event = {
          eventId: deriveEventId(command.commandId, i),
          type: e.type,
          streamId: command.streamId,
          streamVersion: state.version + i + 1,
          occurredAt: now,
          correlationId: command.correlationId,
          causationId: command.commandId,
          businessUnit: command.businessUnit,
          customerExtId: command.customerExtId,
          data: e.data,
        } as CustomerEvent;
        next = evolve(next, event);
        out.push({ topic: eventsTopic, key: command.streamId, type: e.type, value: event });
      });
      stage.set(command.streamId, next);
    }
    if (snapshots) out.push(...snapshots.outputs(partition, stage, states, reader?.position(partition)));
    return out;
  };

  /**
   * Reads the snapshot topic to its end into `states`; returns where the events reader starts in each
   * partition with usable snapshots. Snapshots are off (full fold) when the two topics' partition
   * counts differ: the snapshot of a customer must sit in its events partition.
   */
  const loadSnapshots = async (
    kafka: Messaging['kafka'],
    serde: Messaging['serde'],
    eventsTopicName: string,
    snapshotTopic: string,
    prefix: string,
  ): Promise<Map<number, bigint> | undefined> => {
    const admin = kafka.admin();
    await admin.connect();
    let eventsEnds: Map<number, bigint>;
    try {
      const meta = await admin.fetchTopicMetadata({ topics: [eventsTopicName, snapshotTopic] });
      const counts = meta.topics.map((t) => t.partitions.length);
      if (counts[0] !== counts[1]) {
        logger.warn(
          { events: counts[0], snapshots: counts[1] },
          'state snapshots off: the snapshot topic is not co-partitioned with the events',
        );
        return undefined;
      }
      eventsEnds = new Map(
        (await admin.fetchTopicOffsets(eventsTopicName)).map((o) => [o.partition, BigInt(o.high)]),
      );
    } finally {
      await admin.disconnect();
    }
    await serde.register(SNAPSHOT_SUBJECT, SNAPSHOT_TYPE, snapshotSchema);
    const store = new StateSnapshots({
      topic: snapshotTopic,
      maxPerTransaction: config.SNAPSHOT_MAX_PER_TRANSACTION,
      intervalMs: config.SNAPSHOT_INTERVAL_MS,
    });
    const started = Date.now();
    const snapshotReader = new StreamReader<unknown>({
      kafka,
      serde: new SnapshotSerde(config),
      logger,
      topic: snapshotTopic,
      groupPrefix: `${prefix}customer-decider-snapshots`,
      onMessage: (m) => store.load(m),
    });
    try {
      await snapshotReader.start();
      await snapshotReader.waitUntilCaughtUp();
    } finally {
      await snapshotReader.stop();
    }
    const { startOffsets, loaded, ignoredPartitions } = store.finishLoad(states, eventsEnds);
    logger.info(
      {
        customers: loaded,
        foldFrom: Object.fromEntries([...startOffsets].map(([p, o]) => [p, o.toString()])),
        fullFoldPartitions: ignoredPartitions,
        ms: Date.now() - started,
      },
      'decider state snapshots read',
    );
    snapshots = store;
    return startOffsets;
  };

  return {
    healthPort: () => server?.port ?? 0,
    async start() {
      server = await startHealthServer({
        health,
        metrics,
        port: config.HEALTH_PORT,
        host: config.HEALTH_HOST,
      });
      const { kafka, serde, topics, prefix } = await setUpMessaging(config, 'customer-decider', logger);
      eventsTopic = topics.customerEvents;
      const startOffsets = config.STATE_SNAPSHOTS
        ? await loadSnapshots(kafka, serde, topics.customerEvents, topics.customerStateSnapshots, prefix)
        : undefined;
      reader = new StreamReader<CustomerEvent>({
        kafka,
        serde,
        logger,
        topic: topics.customerEvents,
        groupPrefix: `${prefix}customer-decider-state`,
        onMessage: (m) => apply(m.value, m.partition),
        ...(startOffsets ? { startOffsets } : {}),
      });
      await reader.start();
      let lastLogged = 0;
      await reader.waitUntilCaughtUp(undefined, (read, total) => {
        if (Date.now() - lastLogged > 2000) {
          lastLogged = Date.now();
          logger.info(
            { read: read.toString(), total: total.toString() },
            'rebuilding decider state from the event log',
          );
        }
      });
      logger.info({ customers: states.size }, 'decider state rebuilt');
      processor = new TransactionalProcessor<CustomerCommand>({
        kafka,
        serde,
        logger,
        metrics,
        groupId: `${prefix}${config.CONSUMER_GROUP}`,
        topic: topics.customerCommands,
        transactionalIdPrefix: `${prefix}${config.TRANSACTIONAL_ID_PREFIX}`,
        handler: {
          process: decideBatch,
          committed: (p) => {
            const stage = staged.get(p) ?? new Map<string, CustomerState>();
            for (const [id, s] of stage) {
              const current = states.get(id);
              if (!current || current.version < s.version) states.set(id, s);
            }
            staged.delete(p);
            snapshots?.committed(p, states, stage.keys());
          },
          aborted: (p) => {
            staged.delete(p);
            snapshots?.aborted(p);
          },
          beforePartition: async (p) => reader!.waitUntilCaughtUp([p]),
        },
      });
      health.addReadinessCheck('commands', () => processor?.isReady() ?? false);
      await processor.start();
      health.markStarted();
    },
    async stop() {
      await processor?.stop();
      await reader?.stop();
      await server?.close();
    },
  };
}
