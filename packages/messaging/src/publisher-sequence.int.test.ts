import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { MessageSerde } from './serde';
import { DurablePublisher } from './publisher';
import { deleteSubjects, messagingSettingsFromEnv, recordSchema } from '@crs/testing';

/**
 * On the real broker: a batch the broker stores but whose answer never reaches the publisher (the broker
 * stopped or was killed right after the append; here a proxy drops the broker's answers). kafkajs takes
 * the batch's sequence numbers back, so the broker is ahead of the producer, and every later batch of that
 * producer was OUT_OF_ORDER_SEQUENCE_NUMBER for ever: the fault suite's broker outage left the ingress
 * unable to publish (decision 0041). The publisher replaces its producer and publishes again.
 */
describe('DurablePublisher after a stored batch whose answer was lost', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const topic = `crs-test.publisher-seq-${run}`;
  const subjects = [`crs.test.Seq${run}`];
  const settings = messagingSettingsFromEnv();
  const [brokerHost, brokerPort] = settings.KAFKA_BROKERS.split(',')[0]!.split(':');
  const serde = new MessageSerde(settings);
  let server: Server;
  let proxyPort = 0;
  /** While false, the broker's answers are dropped (what the client sent still reaches the broker). */
  let answers = true;
  const sockets = new Set<Socket>();
  // Every connection of this client goes through the proxy, whatever address the broker advertises.
  const kafka = new Kafka({
    clientId: 'publisher-seq-test',
    brokers: [`127.0.0.1:${brokerPort}`],
    logLevel: logLevel.NOTHING,
    requestTimeout: 1500,
    retry: { initialRetryTime: 100, retries: 2, maxRetryTime: 500 },
    socketFactory: ({ onConnect }) => connect(proxyPort, '127.0.0.1', onConnect),
  });
  const admin = new Kafka({ clientId: 'publisher-seq-admin', brokers: [settings.KAFKA_BROKERS] }).admin();
  let publisher: DurablePublisher | undefined;

  beforeAll(async () => {
    server = createServer((client) => {
      const upstream = connect(Number(brokerPort), brokerHost);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => {
        if (answers) client.write(chunk);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxyPort = (server.address() as AddressInfo).port;
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    await serde.register(subjects[0]!, 'Seq', recordSchema('Seq', { n: 'integer' }));
  });

  afterAll(async () => {
    await publisher?.disconnect().catch(() => undefined);
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
    await deleteSubjects(subjects);
  });

  const message = (n: number) => ({ topic, key: 'k', type: 'Seq', value: { n } });

  it('replaces its producer on OUT_OF_ORDER_SEQUENCE_NUMBER and publishes again; nothing acknowledged is missing', async () => {
    // An ack timeout longer than kafkajs's own retries (3 requests of 1.5 s): the call fails when kafkajs
    // has given the batch up, not before.
    publisher = new DurablePublisher(kafka, serde, 20000);
    await publisher.publish([message(1)]);
    // The broker stores this batch, the answer is lost: the call fails, kafkajs takes the numbers back.
    answers = false;
    await expect(publisher.publish([message(2), message(3)])).rejects.toThrow();
    answers = true;
    // The next batch starts at a sequence the broker has passed: refused until the producer is replaced.
    let acknowledged = false;
    for (let attempt = 0; attempt < 10 && !acknowledged; attempt++) {
      acknowledged = await publisher.publish([message(4)]).then(
        () => true,
        () => false,
      );
    }
    expect(acknowledged).toBe(true);
    expect(publisher.replacedProducers()).toBeGreaterThanOrEqual(1);
    await publisher.publish([message(5)]);

    const seen: number[] = [];
    const consumer = kafka.consumer({ groupId: `crs-test.publisher-seq-reader-${run}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message: m }) => {
        seen.push((await serde.decode<{ n: number }>(m.value!)).n);
      },
    });
    const deadline = Date.now() + 30000;
    while (!(seen.includes(1) && seen.includes(4) && seen.includes(5)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    await consumer.disconnect();
    // Every acknowledged message is there; 2 and 3 were stored although their call failed (the case the
    // decider recognises when the client retries).
    expect(seen).toEqual(expect.arrayContaining([1, 2, 3, 4, 5]));
  }, 60000);
});
