import { LIST_PURPOSE_HEADER, loadMessageSchemas, type MessageSchema } from '@crs/contracts';
import { REGISTRY_JSON_SCHEMA_DRAFT } from './serde';
import { Topics, type TopicKey, type TopicSpec } from './topics';
import { STREAM_VERSION_HEADER } from './decider-core';

/**
 * The AsyncAPI 3.0 description of every topic, built from the two sources the services themselves use:
 * the topic catalogue ({@link Topics}) and the message schemas of schemas/ (loadMessageSchemas, the same
 * list `registerSchemas` registers). What is added here is only what neither source says: which topic
 * carries which message types, its key, and who produces and consumes it. A message schema that no
 * topic claims, or a topic without an entry, makes {@link buildAsyncApi} throw (and its unit test fail),
 * so the document cannot drift from the code. Served by the ingress at /asyncapi.json; rendered to
 * docs/asyncapi.json and docs/events.md by `npm run gen` (checked by `npm run gen:check`).
 */

type Json = Record<string, unknown>;
type MessageKind = MessageSchema['kind'];

/** The message of the decider's snapshot topic: its schema lives with the decider (services/customer). */
interface InternalMessage {
  type: string;
  subject: string;
  schema: Json;
}

interface TopicContract {
  /** What the key is made of (every message of the topic unless the message says otherwise). */
  key: string;
  /** The message types on the topic: every schema of a kind, some types of a kind, or none yet. */
  carries:
    | { kind: MessageKind; types?: readonly string[] }
    | { internal: InternalMessage }
    | { reserved: string };
  /** Keys of particular message types that differ from the topic's key. */
  keys?: Record<string, string>;
  producedBy: readonly string[];
  consumedBy: readonly string[];
}

const CUSTOMER_KEY = '<businessUnit>:<customerExtId> (the streamId)';
const OPERATION_KEY = '<businessUnit>:<operationExtId> (the streamId)';

/**
 * Kept in step with the decider's own definition (services/customer/src/state-snapshots.ts): the
 * customer service's unit test compares the two.
 */
export const CustomerStateSnapshotContract: InternalMessage = {
  type: 'CustomerStateSnapshot',
  subject: 'crs.snapshots.CustomerStateSnapshot',
  schema: {
    title: 'CustomerStateSnapshot',
    type: 'object',
    required: ['format', 'streamId', 'state', 'foldFrom'],
    properties: {
      format: { type: 'integer' },
      streamId: { type: 'string' },
      state: { type: 'object' },
      foldFrom: { type: ['string', 'null'] },
    },
  },
};

/** Which topic carries which messages; every TopicKey must have an entry (the type checks it). */
export const TopicContracts: Record<TopicKey, TopicContract> = {
  customerCommands: {
    key: CUSTOMER_KEY,
    carries: { kind: 'commands' },
    producedBy: ['ingress', 'evaluation', 'screening'],
    consumedBy: ['customer'],
  },
  customerEvents: {
    key: CUSTOMER_KEY,
    carries: { kind: 'events' },
    producedBy: ['customer'],
    consumedBy: ['projector', 'callback', 'evaluation', 'screening', 'customer (state rebuild)'],
  },
  customerStateSnapshots: {
    key: 'the streamId (<businessUnit>:<customerExtId>)',
    carries: { internal: CustomerStateSnapshotContract },
    producedBy: ['customer'],
    consumedBy: ['customer'],
  },
  operationIngest: {
    key: '<businessUnit>:<operationExtId>',
    carries: { kind: 'operations', types: ['OperationReceived'] },
    producedBy: ['upstream systems'],
    consumedBy: ['archive'],
  },
  operationCommands: {
    key: OPERATION_KEY,
    carries: { kind: 'operations', types: ['ArchiveOperation'] },
    producedBy: ['ingress'],
    consumedBy: ['archive'],
  },
  operationEvents: {
    key: OPERATION_KEY,
    carries: {
      kind: 'operations',
      types: ['OperationRegistered', 'OperationArchived', 'RetroMonitoringAlertRaised'],
    },
    producedBy: ['archive'],
    consumedBy: ['archive'],
  },
  screeningLists: {
    key: 'per message type',
    carries: { kind: 'lists' },
    keys: {
      ListSnapshotLoaded: '<list>:<source>',
      ScreeningDecisionRecorded: CUSTOMER_KEY,
    },
    producedBy: ['screening'],
    consumedBy: ['screening', 'archive'],
  },
  riskMatrices: {
    key: 'the matrixId',
    carries: { kind: 'matrices' },
    producedBy: ['evaluation (activate-matrix)'],
    consumedBy: ['evaluation'],
  },
  callbackRetry: {
    key: 'none yet',
    carries: { reserved: 'Reserved for a Kafka-based callback retry path; nothing is published on it yet.' },
    producedBy: [],
    consumedBy: [],
  },
  callbackDeadLetter: {
    key: 'none yet',
    carries: {
      reserved: 'Reserved for callbacks that exhausted their attempts; nothing is published on it yet.',
    },
    producedBy: [],
    consumedBy: [],
  },
};

/** The record header every producer of this system sets (DurablePublisher, TransactionalProcessor). */
export const MESSAGE_TYPE_HEADER = 'type';
/** The rule `MessageSerde.register` sets on every subject. */
export const SUBJECT_COMPATIBILITY = 'BACKWARD';

export interface AsyncApiOptions {
  /** TOPIC_PREFIX of the deployment ('' by default). */
  topicPrefix?: string;
  /** TOPIC_PARTITIONS of the deployment (6 by default); topics with a fixed count keep theirs. */
  partitions?: number;
  /** TOPIC_REPLICATION_FACTOR of the deployment (1 by default, the local stack). */
  replicas?: number;
  version?: string;
}

export const DELIVERY_GUARANTEES = [
  '**Delivery guarantees** (every topic):',
  '',
  '- Producers are idempotent and wait for acks from all in-sync replicas; the decider and the reactors',
  '  write their output and their consumed offsets in one Kafka transaction.',
  '- Consumers must read **committed** records only (`isolation.level=read_committed`; kafkajs:',
  '  `readUncommitted: false`, its default): an aborted transaction leaves records a read-uncommitted',
  '  consumer would see although they never happened.',
  '- Delivery to a consumer is **at least once**: after a crash or a rebalance a consumer sees the records',
  '  since its last committed offset again. Every record has a stable id (`eventId` of events, `commandId`',
  '  of commands; a decision replayed after a crash yields the same event ids), so consumers',
  '  **de-duplicate by that id** (or, on the customer event log, by `streamId` + `streamVersion`).',
  '- Order is kept per key: all messages of one customer (or operation) are in one partition, in order.',
  '- Values are JSON in the Confluent wire format (magic byte 0, 4-byte schema id, JSON); each message',
  '  type is its own registry subject `crs.<kind>.<Type>` with **BACKWARD** compatibility, so a consumer',
  '  built against an older schema version keeps reading newer records. The record header `type` names',
  '  the message type. Events a decider appends (the customer and operation logs) also carry the header',
  '  `streamVersion`: their `streamVersion` as text, so a consumer that keeps its own version per stream',
  '  can skip an event it already holds without parsing the payload. `CustomerCreated` and',
  "  `CustomerUpdated` also carry `listPurpose`: the record's list purpose, `NONE` when this record carries",
  '  none; a consumer that folds list purposes may skip such a record unparsed for a customer it holds no',
  '  purpose for (decision 0073).',
].join('\n');

function contractMessages(key: TopicKey, all: MessageSchema[]): Array<MessageSchema | InternalMessage> {
  const carries = TopicContracts[key].carries;
  if ('reserved' in carries) return [];
  if ('internal' in carries) return [carries.internal];
  const ofKind = all.filter((m) => m.kind === carries.kind);
  if (!carries.types) return ofKind;
  return carries.types.map((type) => {
    const found = ofKind.find((m) => m.type === type);
    if (!found)
      throw new Error(`asyncapi: topic ${key} names ${type}, which has no schema in schemas/${carries.kind}`);
    return found;
  });
}

/** The schema as the registry holds it (MessageSerde.register): draft-07, without $id. */
function registryCopy(schema: Json): Json {
  const { $id: _id, $schema: _schema, ...rest } = schema;
  return { $schema: REGISTRY_JSON_SCHEMA_DRAFT, ...rest };
}

function schemaOf(m: MessageSchema | InternalMessage): Json {
  return 'kind' in m ? registryCopy(m.schema) : m.schema;
}

function idempotencyKey(schema: Json): string {
  const props = (schema.properties ?? {}) as Json;
  if ('eventId' in props) return 'eventId';
  if ('commandId' in props) return 'commandId';
  return 'the key and the content (publishing the same content again is harmless)';
}

function numeric(value: string): string | number {
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

function retention(spec: TopicSpec): string {
  if (spec.cleanupPolicy === 'compact') return 'compacted (newest record per key)';
  if (spec.retentionMs < 0) return 'forever';
  return `${spec.retentionMs / (24 * 60 * 60 * 1000)} days`;
}

/** The AsyncAPI 3.0 document of every topic. */
export function buildAsyncApi(
  opts: AsyncApiOptions = {},
  schemas: MessageSchema[] = loadMessageSchemas(),
): Json {
  const prefix = opts.topicPrefix ?? '';
  const messages: Record<string, Json> = {};
  const channels: Record<string, Json> = {};
  const operations: Record<string, Json> = {};
  const claimed = new Set<string>();

  for (const key of Object.keys(Topics) as TopicKey[]) {
    const spec: TopicSpec = Topics[key];
    const contract = TopicContracts[key];
    const carried = contractMessages(key, schemas);
    const refs: Record<string, Json> = {};
    for (const m of carried) {
      if (claimed.has(m.subject)) throw new Error(`asyncapi: ${m.subject} is claimed by two topics`);
      claimed.add(m.subject);
      const schema = schemaOf(m);
      const props = (schema.properties ?? {}) as Json;
      messages[m.type] = {
        name: m.type,
        title: m.type,
        summary: String((m.schema as Json).description ?? spec.description),
        contentType: 'application/json',
        headers: {
          type: 'object',
          required: [MESSAGE_TYPE_HEADER],
          properties: {
            [MESSAGE_TYPE_HEADER]: {
              type: 'string',
              const: m.type,
              description: 'The message type (UTF-8), set by every producer of this system.',
            },
            ...('streamVersion' in props
              ? {
                  [STREAM_VERSION_HEADER]: {
                    type: 'string',
                    pattern: '^[1-9][0-9]*$',
                    description:
                      "The payload's streamVersion as decimal text (UTF-8), set by the decider that appends the event (absent on events appended before decision 0048 introduced it): a consumer that keeps its own position per stream can skip an event it already holds without parsing the payload.",
                  },
                }
              : {}),
            ...(m.type === 'CustomerCreated' || m.type === 'CustomerUpdated'
              ? {
                  [LIST_PURPOSE_HEADER]: {
                    type: 'string',
                    examples: ['BLACK', 'WHITE', 'NONE'],
                    description:
                      "The record's listPurpose as text (UTF-8), NONE when this record carries none, set by the customer decider (absent on events appended before decision 0073 introduced it). NONE does not say the customer has no purpose (a later update of a BLACK customer carries none): a consumer that folds list purposes may skip such a record unparsed only for a customer it holds no purpose for.",
                  },
                }
              : {}),
          },
        },
        payload: { schemaFormat: 'application/schema+json;version=draft-07', schema },
        ...('correlationId' in props
          ? {
              correlationId: {
                description: 'The communicationNumber of the request that caused the message.',
                location: '$message.payload#/correlationId',
              },
            }
          : {}),
        bindings: {
          kafka: {
            key: { type: 'string', description: contract.keys?.[m.type] ?? contract.key },
            schemaIdLocation: 'payload',
            schemaIdPayloadEncoding: 'confluent',
            schemaLookupStrategy: 'one subject per message type: crs.<kind>.<Type>',
            bindingVersion: '0.5.0',
          },
        },
        'x-schema-registry': {
          subject: m.subject,
          compatibility: SUBJECT_COMPATIBILITY,
          schemaType: 'JSON',
        },
        'x-idempotency-key': idempotencyKey(schema),
      };
      refs[m.type] = { $ref: `#/components/messages/${m.type}` };
    }

    const partitions = spec.partitions ?? opts.partitions ?? 6;
    const reserved = 'reserved' in contract.carries ? contract.carries.reserved : undefined;
    const internal = 'internal' in contract.carries;
    channels[key] = {
      address: `${prefix}${spec.name}`,
      title: spec.name,
      description: [
        spec.description + '.',
        `Key: ${contract.key}.`,
        spec.partitions
          ? `Partitions: ${spec.partitions} (fixed).`
          : 'Partitions: TOPIC_PARTITIONS of the deployment.',
        `Retention: ${retention(spec)}.`,
        ...(reserved ? [reserved] : []),
        ...(internal ? ["The decider's private cache, not a contract: do not consume it."] : []),
      ].join(' '),
      messages: refs,
      bindings: {
        kafka: {
          partitions,
          replicas: opts.replicas ?? 1,
          topicConfiguration: {
            'cleanup.policy': [spec.cleanupPolicy],
            'retention.ms': spec.retentionMs,
            ...Object.fromEntries(Object.entries(spec.configs ?? {}).map(([k, v]) => [k, numeric(v)])),
          },
          bindingVersion: '0.5.0',
        },
      },
      'x-key': contract.key,
      'x-partitions': spec.partitions ? 'fixed' : 'TOPIC_PARTITIONS',
      'x-produced-by': contract.producedBy,
      'x-consumed-by': contract.consumedBy,
      ...(internal ? { 'x-internal': true } : {}),
    };

    if (carried.length === 0) continue;
    const opMessages = carried.map((m) => ({ $ref: `#/channels/${key}/messages/${m.type}` }));
    const name = key.charAt(0).toUpperCase() + key.slice(1);
    operations[`publish${name}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${key}` },
      summary: `Produced by ${contract.producedBy.join(', ')}.`,
      messages: opMessages,
    };
    operations[`consume${name}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${key}` },
      summary: `Consumed by ${contract.consumedBy.join(', ')}; read committed, at least once, de-duplicate by ${[
        ...new Set(carried.map((m) => idempotencyKey(schemaOf(m)))),
      ].join(' / ')}.`,
      messages: opMessages,
      'x-delivery': {
        isolationLevel: 'read_committed',
        delivery: 'at-least-once',
        ordering: 'per key',
      },
    };
  }

  const unclaimed = schemas.filter((m) => !claimed.has(m.subject)).map((m) => m.subject);
  if (unclaimed.length > 0) {
    throw new Error(
      `asyncapi: no topic carries ${unclaimed.join(', ')}: name it in TopicContracts (packages/messaging/src/asyncapi.ts)`,
    );
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Customer Risk Import Service: topics',
      version: opts.version ?? '1.0.0',
      description: [
        'Every Kafka topic of the service, its messages and their schema-registry subjects. Generated from',
        'the topic catalogue (packages/messaging/src/topics.ts) and schemas/; a consumer to copy:',
        'packages/messaging/src/examples/customer-events-subscriber.ts.',
        '',
        DELIVERY_GUARANTEES,
      ].join('\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      kafka: {
        host: '{brokers}',
        protocol: 'kafka',
        description: 'The Kafka cluster of the deployment, with its Confluent-compatible schema registry.',
        variables: {
          brokers: {
            default: '127.0.0.1:19092',
            description: 'KAFKA_BROKERS of the deployment (the default is the local stack).',
          },
        },
        bindings: {
          kafka: {
            schemaRegistryUrl: 'http://127.0.0.1:18081/apis/ccompat/v7',
            schemaRegistryVendor: 'confluent',
            bindingVersion: '0.5.0',
          },
        },
      },
    },
    channels,
    operations,
    components: { messages },
  };
}
