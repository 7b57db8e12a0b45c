import { Kafka } from 'kafkajs';
import { MessageSerde } from './serde';
import { DurablePublisher } from './publisher';
import { deleteSubjects, KafkaAnswerProxy, messagingSettingsFromEnv, recordSchema } from '@crs/testing';

/**
 * On the real broker: a batch the broker stores but whose answer never reaches the publisher (the broker
 * stopped or was killed right after the append; here a proxy drops the broker's answers to produce requests). kafkajs takes
 * the batch's sequence numbers back, so the broker is ahead of the producer: a later batch of that producer
 * of another size was OUT_OF_ORDER_SEQUENCE_NUMBER for ever (the fault suite's broker outage left the
 * ingress unable to publish: decision 0041), and one of the same size was taken by the broker for a repeat
 * and acknowledged without being stored (an acknowledged customer lost in the long fault suite). The
 * publisher retires a producer after any failed send (decision 0044).
 */
describe('DurablePublisher after a stored batch whose answer was lost', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const topic = `crs-test.publisher-seq-${run}`;
  const subjects = [`crs.test.Seq${run}`];
  const settings = messagingSettingsFromEnv();
  const serde = new MessageSerde(settings);
  // Every produce reaches the broker; while `dropProduceAnswers` is set its answer does not come back.
  const proxy = KafkaAnswerProxy.inFrontOf(settings.KAFKA_BROKERS);
  const kafka = proxy.client('publisher-seq-test');
  const admin = new Kafka({ clientId: 'publisher-seq-admin', brokers: [settings.KAFKA_BROKERS] }).admin();
  let publisher: DurablePublisher | undefined;

  beforeAll(async () => {
    await proxy.start();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    await serde.register(subjects[0]!, 'Seq', recordSchema('Seq', { n: 'integer' }));
  });

  afterAll(async () => {
    await publisher?.disconnect().catch(() => undefined);
    await proxy.stop();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
    await deleteSubjects(subjects);
  });

  const message = (n: number) => ({ topic, key: 'k', type: 'Seq', value: { n } });

  /** Every `n` in the topic, read from the beginning until `last` shows up (or 30 s passed). */
  const readUntil = async (reader: string, last: number): Promise<number[]> => {
    const seen: number[] = [];
    const consumer = kafka.consumer({ groupId: `crs-test.publisher-seq-${reader}-${run}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message: m }) => {
        seen.push((await serde.decode<{ n: number }>(m.value!)).n);
      },
    });
    const deadline = Date.now() + 30000;
    while (!seen.includes(last) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await consumer.disconnect();
    return seen;
  };

  it('publishes through a new producer after a failed batch, so nothing is refused for ever; nothing acknowledged is missing', async () => {
    // An ack timeout longer than kafkajs's own retries (3 requests of 1.5 s): the call fails when kafkajs
    // has given the batch up, not before.
    publisher = new DurablePublisher(kafka, serde, 20000);
    await publisher.publish([message(1)]);
    // The broker stores this batch, the answer is lost: the call fails, kafkajs takes the numbers back.
    proxy.dropProduceAnswers = true;
    await expect(publisher.publish([message(2), message(3)])).rejects.toThrow();
    proxy.dropProduceAnswers = false;
    // On the same producer the next batch would start at a sequence the broker has passed and be refused
    // (OUT_OF_ORDER_SEQUENCE_NUMBER) for ever (decision 0041); the failed send retired it (decision 0044).
    await publisher.publish([message(4)]);
    expect(publisher.replacedProducers()).toBe(1);
    await publisher.publish([message(5)]);

    const seen = await readUntil('reader', 5);
    // Every acknowledged message is there; 2 and 3 were stored although their call failed (the case the
    // decider recognises when the client retries).
    expect(seen).toEqual(expect.arrayContaining([1, 2, 3, 4, 5]));
  }, 60000);

  it('never reuses the numbers of a failed batch: a next batch of the same size is stored, not taken for a repeat', async () => {
    // The broker keeps the last batches' sequence ranges per producer and answers a batch that repeats one
    // of them with success without storing it (a producer's own retry). kafkajs takes a failed batch's
    // numbers back, so the next batch of the same size would repeat the range of one the broker stored:
    // acknowledged, never stored. The fault suite's broker outage lost an acknowledged customer this way.
    const second = new DurablePublisher(kafka, serde, 20000);
    try {
      await second.publish([message(11)]);
      proxy.dropProduceAnswers = true;
      await expect(second.publish([message(12), message(13)])).rejects.toThrow();
      proxy.dropProduceAnswers = false;
      await second.publish([message(14), message(15)]);
      await second.publish([message(16)]);
    } finally {
      proxy.dropProduceAnswers = false;
      await second.disconnect().catch(() => undefined);
    }
    const seen = await readUntil('reader2', 16);
    // 14 and 15 were acknowledged: they are in the log.
    expect(seen).toEqual(expect.arrayContaining([11, 14, 15, 16]));
  }, 60000);
});
