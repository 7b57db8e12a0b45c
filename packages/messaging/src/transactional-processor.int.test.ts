import { KafkaJSNonRetriableError } from 'kafkajs';
import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { createKafka } from './kafka';
import { MessageSerde } from './serde';
import { TransactionalProcessor } from './transactional-processor';
import type { DecodedMessage } from './decoded-message';
import { deleteSubjects, messagingSettingsFromEnv, recordSchema } from '@crs/testing';

/**
 * On the real broker: an error that kafkajs treats as non-retriable stops its consumer for good
 * (`restart: false`); ours must start again by itself and still process every message exactly once
 * (the broker-outage fault scenario found consumers that stayed stopped).
 */
describe('transactional processor after a non-retriable crash', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const topic = `crs-test.tp-crash-${run}`;
  const logger = createLogger('tp-crash-test', 'fatal');
  const kafka = createKafka(messagingSettingsFromEnv(), 'tp-crash-test', logger);
  const serde = new MessageSerde(messagingSettingsFromEnv());
  const subject = `crs.test.TpCrash${run}`;
  const admin = kafka.admin();
  let processor: TransactionalProcessor<{ n: number }> | undefined;

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    await serde.register(subject, 'TpCrash', recordSchema('TpCrash', { n: 'integer' }));
  });
  afterAll(async () => {
    await processor?.stop();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
    await deleteSubjects([subject]);
  });

  it('starts its consumer again and processes every message once', async () => {
    const seen: number[] = [];
    let failures = 0;
    processor = new TransactionalProcessor<{ n: number }>({
      kafka,
      serde,
      logger,
      metrics: createMetricsRegistry('tp-crash-test'),
      groupId: `crs-test.tp-crash-${run}`,
      topic,
      transactionalIdPrefix: `crs-test.tp-crash-${run}`,
      handler: {
        process: async (messages: DecodedMessage<{ n: number }>[]) => {
          // What a coordinator lookup that ran out of retries during a broker outage surfaces as.
          if (failures < 2) {
            failures++;
            throw new KafkaJSNonRetriableError('Failed to find group coordinator');
          }
          seen.push(...messages.map((m) => m.value.n));
          return [];
        },
      },
    });
    await processor.start();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic,
      messages: await Promise.all(
        [1, 2, 3].map(async (n) => ({ key: 'k', value: await serde.encode('TpCrash', { n }) })),
      ),
    });
    await producer.disconnect();

    // The consumed offsets commit with the (empty) transaction: wait until nothing is left to read.
    const committedOffset = async () =>
      (await admin.fetchOffsets({ groupId: `crs-test.tp-crash-${run}`, topics: [topic] }))[0]!.partitions[0]!
        .offset;
    const deadline = Date.now() + 60000;
    while ((await committedOffset()) !== '3' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(await committedOffset()).toBe('3');
    expect(failures).toBe(2);
    expect(seen).toEqual([1, 2, 3]);
    expect(processor.isReady()).toBe(true);
  });
});

/**
 * A partition's catch-up (`beforePartition`: the decider's state reader reaching the end of its events)
 * runs inside the batch. One longer than the session timeout got the member expelled: its batch was
 * processed, its commit refused, and the whole catch-up and batch done again after the rejoin.
 */
describe('transactional processor during a catch-up longer than the session timeout', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const topic = `crs-test.tp-slow-catch-up-${run}`;
  const groupId = `crs-test.tp-slow-catch-up-${run}`;
  const logger = createLogger('tp-slow-catch-up-test', 'fatal');
  const kafka = createKafka(messagingSettingsFromEnv(), 'tp-slow-catch-up-test', logger);
  const serde = new MessageSerde(messagingSettingsFromEnv());
  const subject = `crs.test.TpSlow${run}`;
  const admin = kafka.admin();
  let processor: TransactionalProcessor<{ n: number }> | undefined;
  const SESSION_MS = 6000; // the broker's group.min.session.timeout.ms

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    await serde.register(subject, 'TpSlow', recordSchema('TpSlow', { n: 'integer' }));
  });
  afterAll(async () => {
    await processor?.stop();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
    await deleteSubjects([subject]);
  });

  it('stays in the group and processes the batch once', async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic,
      messages: await Promise.all(
        [1, 2, 3].map(async (n) => ({ key: 'k', value: await serde.encode('TpSlow', { n }) })),
      ),
    });
    await producer.disconnect();

    const seen: number[] = [];
    let catchUps = 0;
    processor = new TransactionalProcessor<{ n: number }>({
      kafka,
      serde,
      logger,
      metrics: createMetricsRegistry('tp-slow-catch-up-test'),
      groupId,
      topic,
      transactionalIdPrefix: groupId,
      sessionTimeout: SESSION_MS,
      handler: {
        beforePartition: async () => {
          // The first catch-up outlasts two session timeouts; one after a rejoin would be quick.
          if (catchUps++ === 0) await new Promise((r) => setTimeout(r, 2 * SESSION_MS + 1000));
        },
        process: async (messages: DecodedMessage<{ n: number }>[]) => {
          seen.push(...messages.map((m) => m.value.n));
          return [];
        },
      },
    });
    await processor.start();

    const committedOffset = async () =>
      (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions[0]!.offset;
    const deadline = Date.now() + 60000;
    while ((await committedOffset()) !== '3' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(await committedOffset()).toBe('3');
    // Not expelled: no second assignment (no second catch-up), and no batch processed twice.
    expect(catchUps).toBe(1);
    expect(seen).toEqual([1, 2, 3]);
    expect(processor.isReady()).toBe(true);
  }, 90000);
});
