import { KafkaJSNonRetriableError } from 'kafkajs';
import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { createKafka } from './kafka';
import { MessageSerde } from './serde';
import { TransactionalProcessor, type TransactionalHandler } from './transactional-processor';
import type { DecodedMessage } from './decoded-message';
import { deleteSubjects, messagingSettingsFromEnv, recordSchema } from '@crs/testing';

type Msg = { n: number };

/**
 * A scratch topic of one partition with messages 1, 2, 3 of a scratch schema on the real broker, and a
 * processor of it (one per test), all removed after the suite.
 */
function scratch(name: string, type: string) {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const topic = `crs-test.${name}-${run}`;
  const groupId = topic;
  const logger = createLogger(`${name}-test`, 'fatal');
  const kafka = createKafka(messagingSettingsFromEnv(), `${name}-test`, logger);
  const serde = new MessageSerde(messagingSettingsFromEnv());
  const subject = `crs.test.${type}${run}`;
  const admin = kafka.admin();
  let processor: TransactionalProcessor<Msg> | undefined;

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    await serde.register(subject, type, recordSchema(type, { n: 'integer' }));
  });
  afterAll(async () => {
    await processor?.stop();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
    await deleteSubjects([subject]);
  });

  const committedOffset = async () =>
    (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions[0]!.offset;

  return {
    /** Sends messages 1, 2, 3 to the topic (or `ns`, in sends of `perSend`, keyed by `keyOf`). */
    async produce(ns = [1, 2, 3], keyOf = (_n: number) => 'k', perSend = ns.length): Promise<void> {
      const producer = kafka.producer();
      await producer.connect();
      for (let i = 0; i < ns.length; i += perSend)
        await producer.send({
          topic,
          messages: ns
            .slice(i, i + perSend)
            .map((n) => ({ key: keyOf(n), value: serde.encodeNow(type, { n }) })),
        });
      await producer.disconnect();
    },
    /** Starts a processor of the topic with this handler (and options). */
    async start(
      handler: TransactionalHandler<Msg>,
      options: { sessionTimeout?: number; lingerMs?: number } = {},
    ): Promise<TransactionalProcessor<Msg>> {
      processor = new TransactionalProcessor<Msg>({
        kafka,
        serde,
        logger,
        metrics: createMetricsRegistry(`${name}-test`),
        groupId,
        topic,
        transactionalIdPrefix: groupId,
        ...options,
        handler,
      });
      await processor.start();
      return processor;
    },
    /** The group's committed offset once it is `offset`, or what it is after a minute. */
    async committedOnceAt(offset: string): Promise<string | undefined> {
      const deadline = Date.now() + 60000;
      while ((await committedOffset()) !== offset && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      return committedOffset();
    },
  };
}

/**
 * On the real broker: an error that kafkajs treats as non-retriable stops its consumer for good
 * (`restart: false`); ours must start again by itself and still process every message exactly once
 * (the broker-outage fault scenario found consumers that stayed stopped).
 */
describe('transactional processor after a non-retriable crash', () => {
  const topic = scratch('tp-crash', 'TpCrash');

  it('starts its consumer again and processes every message once', async () => {
    const seen: number[] = [];
    let failures = 0;
    const processor = await topic.start({
      process: async (messages: DecodedMessage<Msg>[]) => {
        // What a coordinator lookup that ran out of retries during a broker outage surfaces as.
        if (failures < 2) {
          failures++;
          throw new KafkaJSNonRetriableError('Failed to find group coordinator');
        }
        seen.push(...messages.map((m) => m.value.n));
        return [];
      },
    });
    await topic.produce();

    // The consumed offsets commit with the (empty) transaction: wait until nothing is left to read.
    expect(await topic.committedOnceAt('3')).toBe('3');
    expect(failures).toBe(2);
    expect(seen).toEqual([1, 2, 3]);
    expect(processor.isReady()).toBe(true);
  });
});

/**
 * With the linger under load (decision 0086), batches of many customers wait for each other: each message is
 * still handed over once, in order, and the offsets commit to the end.
 */
describe('transactional processor with a linger between batches', () => {
  const topic = scratch('tp-linger', 'TpLinger');

  it('processes every message once and in order, from many keys sent a few at a time', async () => {
    const seen: number[] = [];
    await topic.start(
      {
        process: async (messages: DecodedMessage<Msg>[]) => {
          seen.push(...messages.map((m) => m.value.n));
          return [];
        },
      },
      { lingerMs: 30 },
    );
    const ns = Array.from({ length: 60 }, (_, i) => i + 1);
    await topic.produce(ns, (n) => `customer-${n % 12}`, 3);
    expect(await topic.committedOnceAt('60')).toBe('60');
    expect(seen).toEqual(ns);
  });
});

/**
 * A partition's catch-up (`beforePartition`: the decider's state reader reaching the end of its events)
 * runs inside the batch. One longer than the session timeout got the member expelled: its batch was
 * processed, its commit refused, and the whole catch-up and batch done again after the rejoin.
 */
describe('transactional processor during a catch-up longer than the session timeout', () => {
  const topic = scratch('tp-slow-catch-up', 'TpSlow');
  const SESSION_MS = 6000; // the broker's group.min.session.timeout.ms

  it('stays in the group and processes the batch once', async () => {
    await topic.produce();
    const seen: number[] = [];
    let catchUps = 0;
    const processor = await topic.start(
      {
        beforePartition: async () => {
          // The first catch-up outlasts two session timeouts; one after a rejoin would be quick.
          if (catchUps++ === 0) await new Promise((r) => setTimeout(r, 2 * SESSION_MS + 1000));
        },
        process: async (messages: DecodedMessage<Msg>[]) => {
          seen.push(...messages.map((m) => m.value.n));
          return [];
        },
      },
      { sessionTimeout: SESSION_MS },
    );

    expect(await topic.committedOnceAt('3')).toBe('3');
    // Not expelled: no second assignment (no second catch-up), and no batch processed twice.
    expect(catchUps).toBe(1);
    expect(seen).toEqual([1, 2, 3]);
    expect(processor.isReady()).toBe(true);
  }, 90000);
});
