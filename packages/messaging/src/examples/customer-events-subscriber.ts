/**
 * A subscriber of the customer event log (crs.customer.events.v1) that an internal team can copy:
 * it needs kafkajs, @kafkajs/confluent-schema-registry, ajv and ajv-formats, and nothing of this
 * repository. The contract it relies on is docs/events.md (AsyncAPI: docs/asyncapi.json, or
 * GET /asyncapi.json on the ingress):
 *
 * - values are JSON in the Confluent wire format; the registry client looks the schema up by the id
 *   in the value, checks the payload against it, and returns the event;
 * - read committed only (readUncommitted: false), or records of aborted transactions show up;
 * - delivery is at least once: after a crash or a rebalance, records since the last committed offset
 *   come again, so the handler runs once per eventId and records it as handled.
 *
 * Tested against the real local stack by customer-events-subscriber.int.test.ts.
 */
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';

/** The envelope every customer event carries (schemas/events/*.schema.json); `data` depends on `type`. */
export interface CustomerEventEnvelope {
  eventId: string;
  type: string;
  streamId: string;
  streamVersion: number;
  occurredAt: string;
  correlationId: string;
  causationId: string;
  businessUnit: string;
  customerExtId: string;
  data: Record<string, unknown>;
}

/**
 * The event ids already handled. The in-memory default forgets them on restart; keep them where the
 * handler keeps its effects (the same database transaction, or a unique index on eventId) so that a
 * redelivery after a restart is recognised too.
 */
export interface HandledEvents {
  has(eventId: string): Promise<boolean>;
  add(eventId: string): Promise<void>;
}

export function inMemoryHandledEvents(): HandledEvents {
  const ids = new Set<string>();
  return {
    has: async (id) => ids.has(id),
    add: async (id) => void ids.add(id),
  };
}

export interface CustomerEventsSubscriberOptions {
  brokers: string[];
  /** Confluent-compatible registry API, e.g. http://127.0.0.1:18081/apis/ccompat/v7 (Apicurio). */
  registryUrl: string;
  /** Your consumer group: your own name, never one of the service's groups. */
  groupId: string;
  /** The topic, with the deployment's TOPIC_PREFIX if it has one. */
  topic?: string;
  /** Called once per eventId; throwing makes kafkajs deliver the message again (after a backoff). */
  handle: (event: CustomerEventEnvelope) => Promise<void>;
  handled?: HandledEvents;
  /** ssl, sasl, clientId, ... of your cluster. */
  kafka?: Omit<KafkaConfig, 'brokers'>;
}

export interface CustomerEventsSubscriber {
  stop(): Promise<void>;
}

export async function subscribeToCustomerEvents(
  opts: CustomerEventsSubscriberOptions,
): Promise<CustomerEventsSubscriber> {
  const handled = opts.handled ?? inMemoryHandledEvents();
  // The registry client validates every decoded payload with Ajv. The schemas use `format`
  // (date-time, ...), so Ajv gets the formats; strict: false accepts their annotations.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const registry = new SchemaRegistry(
    { host: opts.registryUrl },
    // The client's types name its own (older) Ajv; any Ajv 8 instance works.
    { [SchemaType.JSON]: { ajvInstance: ajv as never } },
  );
  const kafka = new Kafka({
    clientId: opts.groupId,
    logLevel: logLevel.WARN,
    ...opts.kafka,
    brokers: opts.brokers,
  });
  const consumer = kafka.consumer({ groupId: opts.groupId, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic: opts.topic ?? 'crs.customer.events.v1', fromBeginning: true });
  await consumer.run({
    // Offsets are committed after eachMessage returns: a message is acknowledged only once handled.
    eachMessage: async ({ message }) => {
      if (!message.value) return;
      const event = (await registry.decode(message.value)) as CustomerEventEnvelope;
      if (await handled.has(event.eventId)) return;
      await opts.handle(event);
      await handled.add(event.eventId);
    },
  });
  return {
    stop: async () => {
      await consumer.stop();
      await consumer.disconnect();
    },
  };
}
