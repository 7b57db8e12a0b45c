import type { Kafka } from 'kafkajs';
import type { Logger } from '@crs/runtime';
import { Topics, type TopicSpec } from './topics';
import { MessageSerde, type SchemaDoc } from './serde';

/** Creates every topic with explicit partitions and retention; existing topics are left as they are. */
export async function ensureTopics(
  kafka: Kafka,
  opts: {
    partitions: number;
    replicationFactor: number;
    logger: Logger;
    prefix?: string;
    topics?: TopicSpec[];
  },
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const prefix = opts.prefix ?? '';
    const wanted = (opts.topics ?? (Object.values(Topics) as TopicSpec[]))
      .map((t) => ({ ...t, name: `${prefix}${t.name}` }))
      .filter((t) => !existing.has(t.name));
    if (wanted.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: wanted.map((t) => ({
        topic: t.name,
        numPartitions: t.partitions ?? opts.partitions,
        replicationFactor: opts.replicationFactor,
        configEntries: [
          { name: 'retention.ms', value: String(t.retentionMs) },
          { name: 'cleanup.policy', value: t.cleanupPolicy },
          { name: 'min.insync.replicas', value: String(Math.min(2, opts.replicationFactor)) },
          ...Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
        ],
      })),
    });
    opts.logger.info({ topics: wanted.map((t) => t.name) }, 'topics created');
  } finally {
    await admin.disconnect();
  }
}

export interface SchemaRegistration {
  subject: string;
  type: string;
  schema: SchemaDoc;
}

/** Registers every message schema (idempotent; the registry enforces BACKWARD compatibility). */
export async function registerSchemas(
  serde: MessageSerde,
  registrations: SchemaRegistration[],
): Promise<void> {
  for (const r of registrations) await serde.register(r.subject, r.type, r.schema);
}
