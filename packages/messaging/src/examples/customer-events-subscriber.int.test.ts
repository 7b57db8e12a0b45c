import { createLogger } from '@crs/runtime';
import { deleteTopicsWithPrefix, messagingSettingsFromEnv, scratchMessagingSettings } from '@crs/testing';
import { setUpMessaging, type Messaging } from '../messaging-setup';
import { DurablePublisher } from '../publisher';
import {
  subscribeToCustomerEvents,
  type CustomerEventEnvelope,
  type CustomerEventsSubscriber,
} from './customer-events-subscriber';

/**
 * The copyable subscriber on the real stack: events published through the project's own messaging
 * (registry serde, durable publisher) are decoded through the registry, and an event delivered twice
 * (same eventId, as after a producer retry or a redelivery) is handled once.
 */
describe('customer events subscriber example', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const prefix = `crs-test.subscriber-${run}.`;
  const logger = createLogger('subscriber-example-test', 'fatal');
  let messaging: Messaging;
  let publisher: DurablePublisher;
  let subscriber: CustomerEventsSubscriber | undefined;

  beforeAll(async () => {
    messaging = await setUpMessaging(scratchMessagingSettings(prefix, 2), 'subscriber-example-test', logger);
    publisher = new DurablePublisher(messaging.kafka, messaging.serde);
    await publisher.connect();
  });
  afterAll(async () => {
    await subscriber?.stop();
    await publisher.disconnect();
    await deleteTopicsWithPrefix(messaging.kafka, prefix);
  });

  const statusChanged = (streamVersion: number, to: string): CustomerEventEnvelope => ({
    eventId: `cmd-${run}.${streamVersion}`,
    type: 'CustomerStatusChanged',
    streamId: `DEMO:CUST-${run}`,
    streamVersion,
    occurredAt: new Date(Date.UTC(2025, 0, 1, 0, 0, streamVersion)).toISOString(),
    correlationId: `COMM-${run}`,
    causationId: `cmd-${run}`,
    businessUnit: 'DEMO',
    customerExtId: `CUST-${run}`,
    data: { to },
  });

  it('decodes through the registry and handles each event id once', async () => {
    const first = statusChanged(1, 'ACTIVE');
    const second = statusChanged(2, 'SUSPENDED');
    const last = statusChanged(3, 'CLOSED');
    // One key, so one partition and this order: the duplicate of `first` arrives before `last`.
    const publish = (e: CustomerEventEnvelope) =>
      publisher.publish([
        { topic: messaging.topics.customerEvents, key: e.streamId, type: e.type, value: e },
      ]);
    for (const e of [first, second, first, last]) await publish(e);

    const handled: CustomerEventEnvelope[] = [];
    let sawLast!: () => void;
    const done = new Promise<void>((resolve) => (sawLast = resolve));
    subscriber = await subscribeToCustomerEvents({
      brokers: messagingSettingsFromEnv().KAFKA_BROKERS.split(','),
      registryUrl: messagingSettingsFromEnv().SCHEMA_REGISTRY_URL,
      groupId: `${prefix}example-subscriber`,
      topic: messaging.topics.customerEvents,
      handle: async (event) => {
        handled.push(event);
        if (event.eventId === last.eventId) sawLast();
      },
    });
    await done;
    // Stopped inside the test: a consumer left running between the test and afterAll trips jest's
    // module loader (kafkajs requires lazily).
    await subscriber.stop();
    subscriber = undefined;

    expect(handled.map((e) => e.eventId)).toEqual([first.eventId, second.eventId, last.eventId]);
    expect(handled[1]).toEqual(second);
  });
});
