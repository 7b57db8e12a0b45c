import { StreamReader, type Messaging, type RestoredStates } from '@crs/messaging';
import type { Logger } from '@crs/runtime';
import type { CustomerState } from './domain/customer-state';
import type { CustomerConfig } from './config';
import {
  SNAPSHOT_SUBJECT,
  SNAPSHOT_TYPE,
  SnapshotSerde,
  StateSnapshots,
  snapshotSchema,
} from './state-snapshots';

/**
 * Reads the snapshot topic to its end into `states` (decision 0016); returns where the events reader
 * starts in each partition with usable snapshots, and the store that writes the next ones. Snapshots
 * are off (undefined: full fold) when the two topics' partition counts differ: the snapshot of a
 * customer must sit in its events partition.
 */
export async function readStateSnapshots(
  messaging: Messaging,
  config: CustomerConfig,
  logger: Logger,
  states: Map<string, CustomerState>,
): Promise<(RestoredStates<CustomerState> & { store: StateSnapshots }) | undefined> {
  const { kafka, serde, topics, prefix } = messaging;
  const eventsTopic = topics.customerEvents;
  const snapshotTopic = topics.customerStateSnapshots;
  const admin = kafka.admin();
  await admin.connect();
  let eventsEnds: Map<number, bigint>;
  try {
    const meta = await admin.fetchTopicMetadata({ topics: [eventsTopic, snapshotTopic] });
    const counts = meta.topics.map((t) => t.partitions.length);
    if (counts[0] !== counts[1]) {
      logger.warn(
        { events: counts[0], snapshots: counts[1] },
        'state snapshots off: the snapshot topic is not co-partitioned with the events',
      );
      return undefined;
    }
    eventsEnds = new Map(
      (await admin.fetchTopicOffsets(eventsTopic)).map((o) => [o.partition, BigInt(o.high)]),
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
  return { startOffsets, store };
}
