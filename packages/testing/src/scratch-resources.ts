import type { Kafka } from 'kafkajs';

// What tests make on the real registry and broker for themselves, and clean up after them: scratch
// schemas and subjects, topics under a test's own prefix.

/**
 * A closed JSON Schema object with every property required: the shape of the scratch messages that
 * messaging tests register on the real registry.
 */
export function recordSchema(title: string, properties: Record<string, 'integer' | 'string'>) {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title,
    type: 'object',
    required: Object.keys(properties),
    properties: Object.fromEntries(Object.entries(properties).map(([k, type]) => [k, { type }])),
    additionalProperties: false,
  };
}

/** Deletes the schema subjects a test registered (best effort: a cleanup never fails the test). */
export async function deleteSubjects(
  subjects: string[],
  registryUrl: string = process.env.SCHEMA_REGISTRY_URL!,
): Promise<void> {
  for (const s of subjects) {
    await fetch(`${registryUrl}/subjects/${s}`, { method: 'DELETE' }).catch(() => undefined);
  }
}

/** Deletes every topic whose name starts with a test's prefix (best effort: a cleanup never fails the test). */
export async function deleteTopicsWithPrefix(kafka: Kafka, prefix: string): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const ours = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (ours.length > 0) await admin.deleteTopics({ topics: ours, timeout: 30000 });
  } catch {
    // Left to the broker's next cleanup; the names are unique per run.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
