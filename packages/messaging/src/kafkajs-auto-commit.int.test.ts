import type { Admin, Consumer, Producer } from 'kafkajs';
import { createLogger } from '@crs/runtime';
import { messagingSettingsFromEnv } from '@crs/testing';
import { createKafka } from './kafka';

/**
 * Our patch of kafkajs's consumer runner (patches/kafkajs@2.2.4.patch, decision 0038) on the real broker:
 * with an auto-commit interval, a consumer commits when the interval is due instead of after every fetched
 * batch, an idle consumer still commits what it resolved, and a consumer that stops or rebalances commits
 * before it leaves. Without an interval, every batch commits as in kafkajs.
 */
describe('kafkajs patch: auto-commit honours its interval', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const logger = createLogger('auto-commit-test', 'fatal');
  const kafka = createKafka(messagingSettingsFromEnv(), 'auto-commit-test', logger);
  const admin: Admin = kafka.admin();
  const topic = `crs-test.auto-commit-${run}`;
  let producer: Producer;
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
  });

  afterAll(async () => {
    for (const c of consumers) await c.disconnect().catch(() => undefined);
    await producer.disconnect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  const committed = async (groupId: string): Promise<string | undefined> => {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const o = offsets?.partitions.find((p) => p.partition === 0)?.offset;
    return o === undefined || o === '-1' ? undefined : o;
  };
  const until = async (what: string, done: () => Promise<boolean> | boolean): Promise<void> => {
    const deadline = Date.now() + 30000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  /** A consumer counting its batches and commits; `seen` holds the offsets it handled. */
  const start = async (groupId: string, autoCommitInterval?: number) => {
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
    consumers.push(consumer);
    const seen: string[] = [];
    let batches = 0;
    let commits = 0;
    consumer.on(consumer.events.COMMIT_OFFSETS, () => {
      commits += 1;
    });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      ...(autoCommitInterval === undefined ? {} : { autoCommitInterval }),
      eachBatch: async ({ batch }) => {
        batches += 1;
        for (const m of batch.messages) seen.push(m.offset);
      },
    });
    return { consumer, seen, batches: () => batches, commits: () => commits };
  };

  /** Sends `n` messages one at a time, each after the previous one was handled: one batch each. */
  const sendOneByOne = async (n: number, seen: string[]) => {
    for (let i = 0; i < n; i += 1) {
      const before = seen.length;
      await producer.send({ topic, messages: [{ key: 'k', value: `m${i}` }] });
      await until('the message to be handled', () => seen.length > before);
    }
  };

  it('with an interval, batches do not each commit, and an idle consumer commits what it handled', async () => {
    const groupId = `crs-test.auto-commit-idle-${run}`;
    const c = await start(groupId, 3000);
    const startOffset = Number((await admin.fetchTopicOffsets(topic))[0]!.high);
    await sendOneByOne(5, c.seen);
    // Unpatched kafkajs commits after every one of the five batches, whatever the interval says.
    expect(c.batches()).toBeGreaterThanOrEqual(5);
    expect(c.commits()).toBeLessThan(c.batches());
    // No further message arrives: the idle consumer's empty fetches commit the last offset once due.
    const end = String(startOffset + 5);
    await until('the idle consumer to commit', async () => (await committed(groupId)) === end);
    expect(c.seen).toHaveLength(5 + startOffset);
  }, 60000);

  it('a consumer that stops commits everything it handled before it leaves its group', async () => {
    const groupId = `crs-test.auto-commit-stop-${run}`;
    const c = await start(groupId, 60000);
    await until('the earlier messages to be handled', async () => {
      const high = Number((await admin.fetchTopicOffsets(topic))[0]!.high);
      return c.seen.length === high;
    });
    await sendOneByOne(3, c.seen);
    const high = String((await admin.fetchTopicOffsets(topic))[0]!.high);
    // A minute's interval never came due: only the stop commits.
    await c.consumer.disconnect();
    expect(await committed(groupId)).toBe(high);
  }, 60000);

  it('without an interval every batch commits, as kafkajs does', async () => {
    const groupId = `crs-test.auto-commit-each-${run}`;
    const c = await start(groupId);
    await until('the earlier messages to be handled', async () => {
      const high = Number((await admin.fetchTopicOffsets(topic))[0]!.high);
      return c.seen.length === high;
    });
    const before = c.batches();
    await sendOneByOne(3, c.seen);
    await until('the last batch to commit', () => c.commits() >= c.batches());
    expect(c.batches() - before).toBeGreaterThanOrEqual(3);
    expect(await committed(groupId)).toBe(String((await admin.fetchTopicOffsets(topic))[0]!.high));
  }, 60000);
});
