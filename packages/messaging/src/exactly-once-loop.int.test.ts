import type { Admin } from 'kafkajs';
import { createLogger, createMetricsRegistry, type Registry } from '@crs/runtime';
import { deleteSubjects, messagingSettingsFromEnv, recordSchema } from '@crs/testing';
import { createKafka } from './kafka';
import { MessageSerde } from './serde';
import { TransactionalProcessor, type TransactionalHandler } from './transactional-processor';
import { StreamReader } from './stream-reader';

type N = { n: number };

/**
 * On the real broker, the exactly-once loop of decision 0013: ignored types are skipped unread and a
 * batch that emitted nothing opens no transaction yet its offsets advance; partitions run concurrently
 * in order; a malformed message still takes the poison path.
 */
describe('transactional processor: batches, ignored types, concurrency, poison', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const logger = createLogger('eo-loop-test', 'fatal');
  const kafka = createKafka(messagingSettingsFromEnv(), 'eo-loop-test', logger);
  const serde = new MessageSerde(messagingSettingsFromEnv());
  const subjects = [`crs.test.EoWanted${run}`, `crs.test.EoOut${run}`];
  const admin: Admin = kafka.admin();
  const producer = kafka.producer();
  const topics: string[] = [];
  const processors: TransactionalProcessor<N>[] = [];

  const newTopic = async (name: string, partitions = 1) => {
    const topic = `crs-test.eo-${name}-${run}`;
    await admin.createTopics({
      topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    topics.push(topic);
    return topic;
  };
  const start = async (topic: string, group: string, handler: TransactionalHandler<N>, metrics: Registry) => {
    const p = new TransactionalProcessor<N>({
      kafka,
      serde,
      logger,
      metrics,
      groupId: group,
      topic,
      transactionalIdPrefix: group,
      handler,
    });
    processors.push(p);
    await p.start();
    return p;
  };
  const wanted = async (n: number) => ({
    key: 'k',
    value: await serde.encode('EoWanted', { n }),
    headers: { type: 'EoWanted' },
  });
  const committed = async (group: string, topic: string) =>
    (await admin.fetchOffsets({ groupId: group, topics: [topic] }))[0]!.partitions.map((p) =>
      Number(p.offset),
    );
  const until = async (what: string, ok: () => Promise<boolean> | boolean) => {
    const deadline = Date.now() + 60000;
    while (!(await ok())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const outcomes = async (metrics: Registry) => {
    const values = (await metrics.getSingleMetric('kafka_transactions_total')?.get())?.values ?? [];
    const by: Record<string, number> = {};
    for (const v of values) by[String(v.labels.outcome)] = (by[String(v.labels.outcome)] ?? 0) + v.value;
    return by;
  };
  /** Every committed output value of a topic (read_committed, from the beginning). */
  const outputsOf = async (topic: string) => {
    const seen: unknown[] = [];
    const reader = new StreamReader<unknown>({
      kafka,
      serde,
      logger,
      topic,
      groupPrefix: `crs-test.eo-read-${run}`,
      onMessage: (m) => {
        seen.push(m.value);
      },
    });
    await reader.start();
    try {
      await reader.waitUntilCaughtUp();
    } finally {
      await reader.stop();
    }
    return seen;
  };
  const outputTo = (topic: string) => (n: number) => ({ topic, key: 'k', type: 'EoOut', value: { n } });

  beforeAll(async () => {
    await admin.connect();
    await producer.connect();
    await serde.register(subjects[0]!, 'EoWanted', recordSchema('EoWanted', { n: 'integer' }));
    await serde.register(subjects[1]!, 'EoOut', recordSchema('EoOut', { n: 'integer' }));
  });
  afterAll(async () => {
    for (const p of processors) await p.stop();
    await producer.disconnect();
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await deleteSubjects(subjects);
  });

  it('skips ignored types unread; a batch of them commits no transaction, its offsets advance, and a restart emits nothing again', async () => {
    const input = await newTopic('ignored-in');
    const output = await newTopic('ignored-out');
    const group = `crs-test.eo-ignored-${run}`;
    const metrics = createMetricsRegistry('eo-loop-test');
    const seen: number[] = [];
    let poisoned = 0;
    const out = outputTo(output);
    const handler: TransactionalHandler<N> = {
      types: ['EoWanted'],
      process: async (messages) => {
        seen.push(...messages.map((m) => m.value.n));
        return messages.map((m) => out(m.value.n));
      },
      poison: () => {
        poisoned++;
        return [];
      },
    };
    const first = await start(input, group, handler, metrics);
    await producer.send({ topic: input, messages: [await wanted(1)] });
    await until('the first transaction', async () => (await committed(group, input))[0] === 1);
    // Not even in the wire format: decoding them would take the poison path.
    await producer.send({
      topic: input,
      messages: Array.from({ length: 5 }, () => ({
        key: 'k',
        value: 'not decoded',
        headers: { type: 'EoIgnored' },
      })),
    });
    // The broker holds the offsets a moment before the processor counts the commit it awaited: wait for both.
    await until(
      'the ignored offsets',
      async () =>
        (await committed(group, input))[0] === 6 && (await outcomes(metrics)).offsets_only !== undefined,
    );
    expect(await outcomes(metrics)).toEqual({ committed: 1, offsets_only: expect.any(Number) });
    expect(seen).toEqual([1]);
    expect(poisoned).toBe(0);

    await first.stop();
    const again = createMetricsRegistry('eo-loop-test');
    await start(input, group, handler, again);
    await producer.send({ topic: input, messages: [await wanted(2)] });
    await until('the restarted processor', async () => (await committed(group, input))[0] === 7);
    expect(seen).toEqual([1, 2]);
    expect(poisoned).toBe(0);
    expect(await outputsOf(output)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('processes partitions at the same time, each in order', async () => {
    const partitions = 3;
    const input = await newTopic('parallel-in', partitions);
    const output = await newTopic('parallel-out');
    const group = `crs-test.eo-parallel-${run}`;
    const byPartition = new Map<number, number[]>();
    let inFlight = 0;
    let overlapped = false;
    const out = outputTo(output);
    // Messages are produced before the processor starts, so each partition has a backlog to fetch.
    for (let round = 0; round < 4; round++) {
      for (let p = 0; p < partitions; p++) {
        await producer.send({
          topic: input,
          messages: await Promise.all(
            Array.from({ length: 5 }, async (_, i) => ({ ...(await wanted(round * 5 + i)), partition: p })),
          ),
        });
      }
    }
    await start(
      input,
      group,
      {
        process: async (messages, partition) => {
          inFlight++;
          if (inFlight > 1) overlapped = true;
          // Holds the first batches open a while, so another partition's batch can begin meanwhile.
          for (let i = 0; i < 50 && !overlapped; i++) await new Promise((r) => setTimeout(r, 100));
          const list = byPartition.get(partition) ?? [];
          list.push(...messages.map((m) => m.value.n));
          byPartition.set(partition, list);
          inFlight--;
          return messages.map((m) => out(partition * 100 + m.value.n));
        },
      },
      createMetricsRegistry('eo-loop-test'),
    );
    await until('every partition', async () => (await committed(group, input)).every((o) => o === 20));
    const inOrder = Array.from({ length: 20 }, (_, i) => i);
    for (let p = 0; p < partitions; p++) expect(byPartition.get(p)).toEqual(inOrder);
    expect(overlapped).toBe(true);
    const values = (await outputsOf(output)) as N[];
    expect(values.map((v) => v.n).sort((a, b) => a - b)).toEqual(
      [0, 1, 2].flatMap((p) => inOrder.map((n) => p * 100 + n)),
    );
  });

  it('sends a malformed message down the poison path and goes on', async () => {
    const input = await newTopic('poison-in');
    const output = await newTopic('poison-out');
    const group = `crs-test.eo-poison-${run}`;
    const seen: number[] = [];
    const poisonedAt: string[] = [];
    const out = outputTo(output);
    await producer.send({
      topic: input,
      messages: [
        await wanted(1),
        { key: 'k', value: 'not the wire format', headers: { type: 'EoWanted' } },
        {
          key: 'k',
          value: Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), Buffer.from('[1,2]')]),
          headers: { type: 'EoWanted' },
        },
        {
          key: 'k',
          value: Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), Buffer.from('{"n":')]),
          headers: { type: 'EoWanted' },
        },
        await wanted(2),
      ],
    });
    await start(
      input,
      group,
      {
        types: ['EoWanted'],
        process: async (messages) => {
          seen.push(...messages.map((m) => m.value.n));
          return messages.map((m) => out(m.value.n));
        },
        poison: (raw, _partition, err) => {
          poisonedAt.push(`${raw.offset}:${(err as { code?: string }).code}`);
          return [out(-Number(raw.offset))];
        },
      },
      createMetricsRegistry('eo-loop-test'),
    );
    await until('the whole topic', async () => (await committed(group, input))[0] === 5);
    expect(seen).toEqual([1, 2]);
    expect(poisonedAt).toEqual(['1:MESSAGE_UNDECODABLE', '2:MESSAGE_UNDECODABLE', '3:MESSAGE_UNDECODABLE']);
    const values = ((await outputsOf(output)) as N[]).map((v) => v.n).sort((a, b) => a - b);
    expect(values).toEqual([-3, -2, -1, 1, 2]);
  });
});
