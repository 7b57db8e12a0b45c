import { Kafka, logLevel } from 'kafkajs';
import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { deleteSubjects, messagingSettingsFromEnv, recordSchema } from '@crs/testing';
import { MessageSerde } from './serde';
import { AtLeastOnceConsumer } from './at-least-once-consumer';
import { TransactionalProcessor } from './transactional-processor';

/**
 * On the real broker: a handler call that never settles (what the unpatched store driver did to the
 * projector after a database outage) stalls its partition while the process looks healthy. The at-least-once
 * consumer and the transactional processor report it (decision 0087): not live, with the partition, the
 * phase and the offset; live again, and the message handled once, when the call settles after all. A
 * handler that keeps failing is no stall.
 */
describe('a consumer batch that hangs', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const topic = `crs-test.stall-${run}`;
  const settings = messagingSettingsFromEnv();
  const serde = new MessageSerde(settings);
  const subject = `crs.test.Stall${run}`;
  const logger = createLogger('stall-test', 'fatal');
  const kafka = new Kafka({
    clientId: 'stall-test',
    brokers: [settings.KAFKA_BROKERS],
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  const producer = kafka.producer();
  /** Message `n` of type Stall on `to`, one at a time. */
  const send = async (to: string, n: number) =>
    producer.send({
      topic: to,
      messages: [{ key: 'k', value: await serde.encode('Stall', { n }), headers: { type: 'Stall' } }],
    });
  let consumer: AtLeastOnceConsumer<{ n: number }> | undefined;
  let processor: TransactionalProcessor<{ n: number }> | undefined;
  const processorTopic = `${topic}-tp`;
  const outputTopic = `${topic}-out`;

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({
      topics: [topic, processorTopic, outputTopic].map((t) => ({
        topic: t,
        numPartitions: 1,
        replicationFactor: 1,
      })),
      waitForLeaders: true,
    });
    await serde.register(subject, 'Stall', recordSchema('Stall', { n: 'integer' }));
    await producer.connect();
  });
  afterAll(async () => {
    await consumer?.stop();
    await processor?.stop();
    await producer.disconnect();
    await admin.deleteTopics({ topics: [topic, processorTopic, outputTopic] }).catch(() => undefined);
    await admin.disconnect();
    await deleteSubjects([subject]);
  });

  const until = async (what: string, ok: () => boolean, ms = 60_000) => {
    for (const end = Date.now() + ms; !ok(); ) {
      if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('an at-least-once consumer is not live while its handler hangs, names where, and is live again with the message handled once', async () => {
    const handled: number[] = [];
    let failuresLeft = 2;
    let release: () => void = () => undefined;
    const hang = new Promise<void>((resolve) => (release = resolve));
    consumer = new AtLeastOnceConsumer<{ n: number }>({
      kafka,
      serde,
      logger,
      metrics: createMetricsRegistry('stall-test'),
      groupId: `crs-test.stall-${run}`,
      topics: [topic],
      stallMs: 2_000,
      handle: async (m) => {
        // Message 1 fails a few times first (a store outage: retried with backoff, never a stall), message 2 hangs.
        if (m.value.n === 1 && failuresLeft-- > 0) throw new Error('store down');
        if (m.value.n === 2) await hang;
        handled.push(m.value.n);
      },
    });
    await consumer.start();
    for (const n of [1, 2, 3]) await send(topic, n);

    let seenDuringRetries = true;
    await until('message 1 handled', () => {
      seenDuringRetries &&= consumer!.isLive();
      return handled.includes(1);
    });
    expect(seenDuringRetries).toBe(true);
    await until('the hang reported', () => !consumer!.isLive());
    expect(consumer.stalled()).toMatchObject({
      topic,
      partition: 0,
      phase: 'handler attempt 1',
      offset: '1',
    });
    expect(handled).toEqual([1]);

    release();
    await until('message 3 handled', () => handled.includes(3));
    expect(consumer.isLive()).toBe(true);
    expect(handled).toEqual([1, 2, 3]);
  }, 120_000);

  it('a transactional processor whose processing hangs is not live, names the phase, and processes the message once it settles', async () => {
    const processed: number[] = [];
    let release: () => void = () => undefined;
    const hang = new Promise<void>((resolve) => (release = resolve));
    processor = new TransactionalProcessor<{ n: number }>({
      kafka,
      serde,
      logger,
      metrics: createMetricsRegistry('stall-test'),
      groupId: `crs-test.stall-tp-${run}`,
      topic: processorTopic,
      transactionalIdPrefix: `crs-test.stall-tp-${run}`,
      stallMs: 2_000,
      handler: {
        process: async (messages) => {
          if (messages.some((m) => m.value.n === 2)) await hang;
          processed.push(...messages.map((m) => m.value.n));
          return messages.map((m) => ({
            topic: outputTopic,
            key: 'k',
            type: 'Stall',
            value: { n: m.value.n },
          }));
        },
      },
    });
    await processor.start();
    await send(processorTopic, 1);
    await until('message 1 processed', () => processed.includes(1));
    await send(processorTopic, 2);
    await until('the hang reported', () => !processor!.isLive());
    expect(processor.stalled()).toMatchObject({
      topic: processorTopic,
      partition: 0,
      phase: 'process',
      offset: '1',
    });
    release();
    await until('live again', () => processor!.isLive());
    await until('message 2 processed', () => processed.includes(2));
    expect(processed).toEqual([1, 2]);
  }, 120_000);
});
