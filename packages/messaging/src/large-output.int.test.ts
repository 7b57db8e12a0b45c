import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { createKafka } from './kafka';
import { MessageSerde } from './serde';
import { TransactionalProcessor } from './transactional-processor';
import { DurablePublisher } from './publisher';
import type { DecodedMessage } from './decoded-message';
import { deleteSubjects, messagingSettingsFromEnv, recordSchema } from '@crs/testing';

/**
 * On the real broker (message.max.bytes at its 1 MiB default): a transaction whose output is larger
 * than one record batch may be, and a publish of that size, must still land whole and once. The
 * fault suite found the decider stuck on a backlog: 500 imports decided in one transaction made a
 * 3 MB batch, the broker refused it (MESSAGE_TOO_LARGE), and every restart tried the same again.
 */
describe('output larger than one broker batch', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const input = `crs-test.big-in-${run}`;
  const output = `crs-test.big-out-${run}`;
  const logger = createLogger('big-output-test', 'fatal');
  const kafka = createKafka(messagingSettingsFromEnv(), 'big-output-test', logger);
  const serde = new MessageSerde(messagingSettingsFromEnv());
  const subjects = [`crs.test.BigIn${run}`, `crs.test.BigOut${run}`];
  const admin = kafka.admin();
  let processor: TransactionalProcessor<{ n: number }> | undefined;
  let publisher: DurablePublisher | undefined;
  const PAD = 'x'.repeat(8 * 1024);

  async function readAll(topic: string, expected: number): Promise<{ n: number; i: number }[]> {
    const consumer = kafka.consumer({
      groupId: `crs-test.big-reader-${run}-${topic}`,
      readUncommitted: false,
    });
    const seen: { n: number; i: number }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const v = await serde.decode<{ n: number; i: number }>(message.value!);
        seen.push({ n: v.n, i: v.i });
      },
    });
    const deadline = Date.now() + 60000;
    while (seen.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    // A little longer: anything beyond the expected count would be a duplicate.
    await new Promise((r) => setTimeout(r, 1000));
    await consumer.disconnect();
    return seen;
  }

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({
      topics: [input, output, `${output}-published`].map((topic) => ({
        topic,
        numPartitions: 1,
        replicationFactor: 1,
      })),
      waitForLeaders: true,
    });
    await serde.register(subjects[0]!, 'BigIn', recordSchema('BigIn', { n: 'integer' }));
    await serde.register(
      subjects[1]!,
      'BigOut',
      recordSchema('BigOut', { n: 'integer', i: 'integer', pad: 'string' }),
    );
  });
  afterAll(async () => {
    await processor?.stop();
    await publisher?.disconnect().catch(() => undefined);
    await admin.deleteTopics({ topics: [input, output, `${output}-published`] }).catch(() => undefined);
    await admin.disconnect();
    await deleteSubjects(subjects);
  });

  it('a transaction with about 2 MB of output commits whole, once', async () => {
    const producer = kafka.producer();
    await producer.connect();
    // Queued before the processor starts, so that it decides them as one backlog.
    await producer.send({
      topic: input,
      messages: await Promise.all(
        Array.from({ length: 30 }, async (_, n) => ({ key: 'k', value: await serde.encode('BigIn', { n }) })),
      ),
    });
    await producer.disconnect();

    const batches: number[] = [];
    processor = new TransactionalProcessor<{ n: number }>({
      kafka,
      serde,
      logger,
      metrics: createMetricsRegistry('big-output-test'),
      groupId: `crs-test.big-${run}`,
      topic: input,
      transactionalIdPrefix: `crs-test.big-${run}`,
      handler: {
        process: async (messages: DecodedMessage<{ n: number }>[]) => {
          batches.push(messages.length);
          return messages.flatMap((m) =>
            Array.from({ length: 8 }, (_, i) => ({
              topic: output,
              key: 'k',
              type: 'BigOut',
              value: { n: m.value.n, i, pad: PAD },
            })),
          );
        },
      },
    });
    await processor.start();

    const seen = await readAll(output, 240);
    // The backlog was decided in transactions larger than one broker batch (otherwise this proves nothing).
    expect(Math.max(...batches) * 8 * PAD.length).toBeGreaterThan(1024 * 1024);
    expect(seen).toHaveLength(240);
    expect(new Set(seen.map((s) => `${s.n}.${s.i}`)).size).toBe(240);
    // Order within the partition is the decision order.
    expect(seen.map((s) => s.n * 8 + s.i)).toEqual(Array.from({ length: 240 }, (_, k) => k));
  });

  it('one publish of about 2 MB is acknowledged and stored whole', async () => {
    publisher = new DurablePublisher(kafka, serde, 20000);
    await publisher.publish(
      Array.from({ length: 240 }, (_, k) => ({
        topic: `${output}-published`,
        key: 'k',
        type: 'BigOut',
        value: { n: Math.floor(k / 8), i: k % 8, pad: PAD },
      })),
    );
    const seen = await readAll(`${output}-published`, 240);
    expect(seen.map((s) => s.n * 8 + s.i)).toEqual(Array.from({ length: 240 }, (_, k) => k));
  });
});
