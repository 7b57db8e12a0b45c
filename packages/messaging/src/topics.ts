/**
 * Every topic the system uses, with its partitioning and retention. Topics are created by the project
 * (`admin init`), never by broker auto-creation. Names follow `<context>.<aggregate>.<kind>.v<N>`;
 * customer commands and events are co-partitioned (same key, same partition count) so the decider that
 * owns command partition p also owns the event history of partition p.
 */
export interface TopicSpec {
  name: string;
  /** ms; -1 keeps forever */
  retentionMs: number;
  cleanupPolicy: 'delete' | 'compact';
  /** Partitions follow the deployment's TOPIC_PARTITIONS unless fixed here. */
  partitions?: number;
  /** Further topic configs (e.g. compaction settings), set when the topic is created. */
  configs?: Record<string, string>;
  description: string;
}

const DAY = 24 * 60 * 60 * 1000;

export const Topics = {
  customerCommands: {
    name: 'crs.customer.commands.v1',
    retentionMs: 14 * DAY,
    cleanupPolicy: 'delete',
    description: 'Commands for the customer decider, keyed <businessUnit>:<customerExtId>',
  },
  customerEvents: {
    name: 'crs.customer.events.v1',
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'The customer event log: the system of record, kept forever',
  },
  customerStateSnapshots: {
    name: 'crs.customer.state-snapshots.v1',
    retentionMs: -1,
    cleanupPolicy: 'compact',
    // Compaction keeps the newest snapshot per customer; nothing depends on older ones, so no lag is
    // needed. Day-long segments let the log cleaner reach closed segments (it never cleans the active one).
    configs: {
      'min.compaction.lag.ms': '0',
      'segment.ms': String(DAY),
      'min.cleanable.dirty.ratio': '0.5',
    },
    description:
      "The customer decider's folded states (a cache, never the record): key = streamId, compacted, co-partitioned with the events",
  },
  operationIngest: {
    name: 'crs.operation.ingest.v1',
    retentionMs: 30 * DAY,
    cleanupPolicy: 'delete',
    description:
      'Operations (payments, transactions) from upstream systems, keyed <businessUnit>:<operationExtId>',
  },
  operationCommands: {
    name: 'crs.operation.commands.v1',
    retentionMs: 14 * DAY,
    cleanupPolicy: 'delete',
    description: 'Commands for the operation decider (archive)',
  },
  operationEvents: {
    name: 'crs.operation.events.v1',
    retentionMs: -1,
    cleanupPolicy: 'delete',
    description: 'Operation events (registered, archived), kept forever',
  },
  screeningLists: {
    name: 'crs.screening.lists.v1',
    retentionMs: -1,
    cleanupPolicy: 'delete',
    partitions: 1,
    description: 'List snapshot events (version, content hash, entry count)',
  },
  riskMatrices: {
    name: 'crs.risk.matrix.v1',
    retentionMs: -1,
    cleanupPolicy: 'delete',
    partitions: 1,
    description: 'Risk matrix versions and activations',
  },
  callbackRetry: {
    name: 'crs.callback.retry.v1',
    retentionMs: 7 * DAY,
    cleanupPolicy: 'delete',
    description: 'Callbacks waiting for a retry, with their due time',
  },
  callbackDeadLetter: {
    name: 'crs.callback.dlq.v1',
    retentionMs: 90 * DAY,
    cleanupPolicy: 'delete',
    description: 'Callbacks that exhausted their attempts',
  },
} as const satisfies Record<string, TopicSpec>;

export type TopicKey = keyof typeof Topics;
export type TopicNames = Record<TopicKey, string>;

/**
 * Topic names under an optional prefix (TOPIC_PREFIX): several isolated installations (tenants of a
 * shared cluster, parallel test suites) can share one Kafka without seeing each other's messages.
 */
export function topicNames(prefix = ''): TopicNames {
  return Object.fromEntries(Object.entries(Topics).map(([k, t]) => [k, `${prefix}${t.name}`])) as TopicNames;
}

/** The key of a stream's messages: its stream id (one definition, in the contracts). */
export { streamKey } from '@crs/contracts/types';
