import type { Admin, Consumer, Producer } from 'kafkajs';
import { createLogger } from '@crs/runtime';
import { memoryLogger, messagingSettingsFromEnv } from '@crs/testing';
import { createKafka } from './kafka';

/**
 * Our patch of kafkajs (patches/kafkajs@2.2.4.patch, decision 0018) on the real broker: a transactional
 * producer looks its transaction coordinator and the consumer group's coordinator up once, not before
 * every step of every transaction, and what it commits is what a read-committed consumer sees.
 */
describe('kafkajs patch: coordinators kept across transactions', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const logger = createLogger('coordinator-cache-test', 'fatal');
  const kafka = createKafka(messagingSettingsFromEnv(), 'coordinator-cache-test', logger);
  const admin: Admin = kafka.admin();
  const topic = `crs-test.coordinator-cache-${run}`;
  const group = `crs-test.coordinator-cache-group-${run}`;
  let producer: Producer;
  let consumer: Consumer | undefined;

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 2, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    producer = kafka.producer({
      transactionalId: `crs-test.coordinator-cache-${run}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
  });

  afterAll(async () => {
    await consumer?.disconnect();
    await producer.disconnect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('ten transactions with offsets need two coordinator look-ups, commit what they sent and abort what they aborted', async () => {
    const requests: string[] = [];
    const off = producer.on(producer.events.REQUEST, (e) => requests.push(e.payload.apiName));
    for (let i = 0; i < 10; i += 1) {
      const txn = await producer.transaction();
      await txn.send({ topic, messages: [{ key: `k${i % 2}`, value: `committed-${i}` }] });
      await txn.sendOffsets({
        consumerGroupId: group,
        topics: [{ topic, partitions: [{ partition: 0, offset: String(i) }] }],
      });
      await txn.commit();
    }
    const aborted = await producer.transaction();
    await aborted.send({ topic, messages: [{ key: 'k0', value: 'aborted' }] });
    await aborted.abort();
    off();

    const count = (api: string) => requests.filter((r) => r === api).length;
    // Unpatched kafkajs: four FindCoordinator per transaction with offsets, two per transaction without.
    expect(count('FindCoordinator')).toBeLessThanOrEqual(2);
    expect(count('EndTxn')).toBe(11);
    expect(count('TxnOffsetCommit')).toBe(10);

    const seen: string[] = [];
    consumer = kafka.consumer({ groupId: `${group}-reader`, readUncommitted: false });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(String(message.value));
      },
    });
    const deadline = Date.now() + 30000;
    while (seen.length < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    expect(seen.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `committed-${i}`).sort());
    const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    expect(offsets!.partitions.find((p) => p.partition === 0)?.offset).toBe('9');
  }, 60000);

  it('back-to-back transactions: a coordinator still completing the previous one is asked again at once, not by the general retry of the send', async () => {
    // The coordinator answers CONCURRENT_TRANSACTIONS to a transaction's first AddPartitionsToTxn while it
    // still writes the markers of the producer's previous one (decision 0039). Unpatched, kafkajs failed
    // the send and its general retry sent it again some 200 ms later, logging "Failed to send messages".
    const { logger: b2bLogger, records: lines } = memoryLogger('coordinator-cache-test', 'debug');
    const watched = createKafka(messagingSettingsFromEnv(), 'coordinator-cache-test-b2b', b2bLogger);
    const b2b = watched.producer({
      transactionalId: `crs-test.coordinator-cache-b2b-${run}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await b2b.connect();
    const requests: string[] = [];
    b2b.on(b2b.events.REQUEST, (e) => requests.push(e.payload.apiName));
    const txns = 150;
    try {
      for (let i = 0; i < txns; i += 1) {
        const txn = await b2b.transaction();
        await txn.send({ topic, messages: [{ key: `b${i % 2}`, value: `back-to-back-${i}` }] });
        await txn.sendOffsets({
          consumerGroupId: `${group}-b2b`,
          topics: [{ topic, partitions: [{ partition: 1, offset: String(i) }] }],
        });
        await txn.commit();
      }
    } finally {
      await b2b.disconnect();
    }
    const count = (api: string) => requests.filter((r) => r === api).length;
    // On an idle broker about two in three of these transactions meet CONCURRENT_TRANSACTIONS.
    const concurrent = lines.filter((l) => /concurrent operation/.test(JSON.stringify(l)));
    expect(count('AddPartitionsToTxn')).toBeGreaterThan(txns);
    expect(concurrent.length).toBeGreaterThan(0);
    // Each was answered by asking again at once: no send failed and went to the general retry, and each
    // response was logged at debug, not as an error.
    expect(lines.filter((l) => l.msg.startsWith('Failed to send messages'))).toEqual([]);
    expect(concurrent.every((l) => l.level === 20)).toBe(true);
    expect(count('Produce')).toBe(txns);
    expect(count('EndTxn')).toBe(txns);
    // The commit returns once the coordinator has prepared it; the offsets become visible when it has
    // written the markers, an instant later: wait (bounded) for the last transaction's offset.
    const committedOffset = async () => {
      const [offsets] = await admin.fetchOffsets({ groupId: `${group}-b2b`, topics: [topic] });
      return offsets!.partitions.find((p) => p.partition === 1)?.offset;
    };
    let offset = await committedOffset();
    for (const until = Date.now() + 10000; offset !== String(txns - 1) && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100));
      offset = await committedOffset();
    }
    expect(offset).toBe(String(txns - 1));
  }, 120000);
});
