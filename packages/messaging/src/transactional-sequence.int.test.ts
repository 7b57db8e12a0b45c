import { Kafka, logLevel } from 'kafkajs';
import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { MessageSerde } from './serde';
import { TransactionalProcessor } from './transactional-processor';
import type { DecodedMessage } from './decoded-message';
import { deleteSubjects, KafkaAnswerProxy, messagingSettingsFromEnv, recordSchema } from '@crs/testing';

/**
 * On the real broker: a transaction whose produce the broker stored but whose answer was lost (a proxy
 * drops the broker's answers to produce requests; every request still reaches the broker). kafkajs takes
 * the batch's sequence numbers back and the transaction is aborted. Had the processor kept that producer,
 * the batch's next attempt (same size) would repeat the aborted batch's sequence range: the broker takes it
 * for a repeat, answers success without storing it, and the commit moves the offsets past a message whose
 * outputs are not in the log (decision 0044). The processor drops a producer after a failed transaction.
 */
describe('transactional processor after a produce whose answer was lost', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const input = `crs-test.tp-seq-in-${run}`;
  const output = `crs-test.tp-seq-out-${run}`;
  const settings = messagingSettingsFromEnv();
  const serde = new MessageSerde(settings);
  const subject = `crs.test.TpSeq${run}`;
  const logger = createLogger('tp-seq-test', 'fatal');
  const proxy = KafkaAnswerProxy.inFrontOf(settings.KAFKA_BROKERS);
  const viaProxy = proxy.client('tp-seq-test');
  const direct = new Kafka({
    clientId: 'tp-seq-direct',
    brokers: [settings.KAFKA_BROKERS],
    logLevel: logLevel.NOTHING,
  });
  const admin = direct.admin();
  let processor: TransactionalProcessor<{ n: number }> | undefined;

  beforeAll(async () => {
    await proxy.start();
    await admin.connect();
    await admin.createTopics({
      topics: [input, output].map((topic) => ({ topic, numPartitions: 1, replicationFactor: 1 })),
      waitForLeaders: true,
    });
    await serde.register(subject, 'TpSeq', recordSchema('TpSeq', { n: 'integer' }));
  });
  afterAll(async () => {
    await processor?.stop();
    await proxy.stop();
    await admin.deleteTopics({ topics: [input, output] }).catch(() => undefined);
    await admin.disconnect();
    await deleteSubjects([subject]);
  });

  it('commits every message with its output: none is acknowledged by the broker as a repeat and lost', async () => {
    const attempts = new Map<number, number>();
    processor = new TransactionalProcessor<{ n: number }>({
      kafka: viaProxy,
      serde,
      logger,
      metrics: createMetricsRegistry('tp-seq-test'),
      groupId: `crs-test.tp-seq-${run}`,
      topic: input,
      transactionalIdPrefix: `crs-test.tp-seq-${run}`,
      handler: {
        process: async (messages: DecodedMessage<{ n: number }>[]) =>
          Promise.all(
            messages.map(async (m) => {
              const n = m.value.n;
              const attempt = (attempts.get(n) ?? 0) + 1;
              attempts.set(n, attempt);
              // The first attempt at message 2 loses its produce answers; the next one does not.
              if (n === 2) proxy.dropProduceAnswers = attempt === 1;
              return { topic: output, key: 'k', type: 'TpSeq', value: { n } };
            }),
          ),
      },
    });
    await processor.start();

    const producer = direct.producer();
    await producer.connect();
    const send = async (n: number) =>
      producer.send({
        topic: input,
        messages: [{ key: 'k', value: await serde.encode('TpSeq', { n }), headers: { type: 'TpSeq' } }],
      });
    const seen: number[] = [];
    const reader = direct.consumer({ groupId: `crs-test.tp-seq-reader-${run}` });
    await reader.connect();
    await reader.subscribe({ topic: output, fromBeginning: true });
    await reader.run({
      eachMessage: async ({ message }) => {
        seen.push((await serde.decode<{ n: number }>(message.value!)).n);
      },
    });
    const waitFor = async (what: () => boolean, label: string) => {
      for (const until = Date.now() + 60000; !what(); ) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${label}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      await send(1);
      await waitFor(() => seen.includes(1), 'output 1');
      await send(2);
      // Its first transaction failed (answers lost) and was aborted; the second one committed.
      await waitFor(() => (attempts.get(2) ?? 0) >= 2, 'a second attempt at message 2');
      await send(3);
      await waitFor(() => seen.includes(3), 'output 3');
      expect(proxy.dropped).toBeGreaterThan(0);
      // Read committed: the aborted attempt's output is not there, the committed one is; each once.
      expect(seen.sort((a, b) => a - b)).toEqual([1, 2, 3]);
    } finally {
      proxy.dropProduceAnswers = false;
      await reader.disconnect();
      await producer.disconnect();
    }
  }, 120000);
});
