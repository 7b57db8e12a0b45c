import { ConfigResourceTypes, type Admin } from 'kafkajs';
import { createLogger } from '@crs/runtime';
import { createKafka } from './kafka';
import { ensureTopics } from './admin';
import { Topics, topicNames, type TopicSpec } from './topics';
import { messagingSettingsFromEnv } from '@crs/testing';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Against the real broker: the project creates its topics itself (never broker auto-creation), under a
 * TOPIC_PREFIX of its own, with the partitions and retention of `topics.ts`; the test reads them back
 * from the broker and deletes its topics afterwards.
 */
describe('ensureTopics on the real broker', () => {
  const logger = createLogger('messaging-admin-int', 'warn');
  const kafka = createKafka(messagingSettingsFromEnv(), 'messaging-admin-int', logger);
  const prefix = `it-topics-${process.pid}-${Date.now().toString(36)}.`;
  const names = topicNames(prefix);
  const PARTITIONS = 3;
  let admin: Admin;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    const ours = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (ours.length > 0) await admin.deleteTopics({ topics: ours, timeout: 30000 });
    await admin.disconnect();
  });

  async function configOf(topic: string): Promise<Record<string, string>> {
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms', 'cleanup.policy'] },
      ],
    });
    return Object.fromEntries(
      described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]),
    );
  }

  async function partitionsOf(topic: string): Promise<number> {
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    return meta.topics[0]!.partitions.length;
  }

  it('creates every topic with its partitions, retention and cleanup policy', async () => {
    await ensureTopics(kafka, { partitions: PARTITIONS, replicationFactor: 1, logger, prefix });
    const existing = new Set(await admin.listTopics());
    for (const [key, spec] of Object.entries(Topics) as [keyof typeof Topics, TopicSpec][]) {
      const name = names[key];
      expect(existing.has(name)).toBe(true);
      expect({ name, partitions: await partitionsOf(name) }).toEqual({
        name,
        partitions: spec.partitions ?? PARTITIONS,
      });
      expect({ name, ...(await configOf(name)) }).toEqual({
        name,
        'retention.ms': String(spec.retentionMs),
        'cleanup.policy': spec.cleanupPolicy,
      });
    }
    // The two the issue names: the customer event log is kept forever, commands for 14 days, co-partitioned.
    expect((await configOf(names.customerEvents))['retention.ms']).toBe('-1');
    expect((await configOf(names.customerCommands))['retention.ms']).toBe(String(14 * DAY_MS));
    expect(await partitionsOf(names.customerCommands)).toBe(await partitionsOf(names.customerEvents));
  });

  it('is idempotent and never changes a topic that exists', async () => {
    await ensureTopics(kafka, { partitions: PARTITIONS + 2, replicationFactor: 1, logger, prefix });
    expect(await partitionsOf(names.customerEvents)).toBe(PARTITIONS);
    expect((await configOf(names.customerEvents))['retention.ms']).toBe('-1');
  });
});
