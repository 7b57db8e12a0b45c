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
