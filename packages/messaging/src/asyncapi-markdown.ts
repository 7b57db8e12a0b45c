import { DELIVERY_GUARANTEES } from './asyncapi';

/**
 * The checked-in renderings of the AsyncAPI document (buildAsyncApi with the default namespace):
 * docs/asyncapi.json for tools, docs/events.md for people. Written by `npm run gen`
 * (packages/messaging/scripts/generate-asyncapi.mjs), compared by `npm run gen:check` and by
 * asyncapi.unit.test.ts, both after prettier with the repository's settings.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a generated document, read field by field

const BANNER =
  '<!-- Generated from packages/messaging/src/asyncapi.ts (topics.ts + schemas/). Do not edit; run `npm run gen`. -->';

const cell = (text: unknown): string =>
  String(text).replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, ' ');

function retention(topicConfiguration: Json): string {
  if ((topicConfiguration['cleanup.policy'] as string[]).includes('compact')) return 'compacted';
  const ms = topicConfiguration['retention.ms'] as number;
  return ms < 0 ? 'forever' : `${ms / 86_400_000} days`;
}

/** docs/events.md: the topics, their messages and subjects, and the delivery guarantees. */
export function renderEventsMarkdown(doc: Json): string {
  const lines: string[] = [
    BANNER,
    '',
    '# Topics and messages (AsyncAPI)',
    '',
    'The machine-readable contract is AsyncAPI 3.0: `GET /asyncapi.json` on the ingress (with the',
    "deployment's topic prefix and partition count) or [`asyncapi.json`](asyncapi.json) here (default",
    'namespace). It is built from the topic catalogue (`packages/messaging/src/topics.ts`) and the',
    'message schemas in `schemas/`, the sources the services use, so it cannot drift from them; choices',
    'are explained in [`asyncapi.md`](asyncapi.md). A subscriber to copy:',
    '[`customer-events-subscriber.ts`](../packages/messaging/src/examples/customer-events-subscriber.ts).',
    '',
    DELIVERY_GUARANTEES,
    '',
    '## Topics',
    '',
    '| Topic | Key | Partitions | Retention | Produced by | Consumed by | Message types |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const channel of Object.values(doc.channels as Record<string, Json>)) {
    const kafka = channel.bindings.kafka as Json;
    const key = String(channel['x-key']);
    const fixed = channel['x-partitions'] === 'fixed';
    const messages = Object.keys(channel.messages as Json);
    lines.push(
      `| \`${channel.address}\` | \`${key}\` | ${fixed ? kafka.partitions : `\`TOPIC_PARTITIONS\` (${kafka.partitions})`} | ${retention(kafka.topicConfiguration)} | ${cell((channel['x-produced-by'] as string[]).join(', ') || '—')} | ${cell((channel['x-consumed-by'] as string[]).join(', ') || '—')} | ${messages.length > 0 ? messages.length : 'none (reserved)'} |`,
    );
  }
  lines.push('', '## Messages', '');
  for (const channel of Object.values(doc.channels as Record<string, Json>)) {
    const messages = Object.keys(channel.messages as Json);
    if (messages.length === 0) continue;
    lines.push(`### On \`${channel.address}\``, '', cell(channel.description), '');
    for (const name of messages) {
      const m = doc.components.messages[name] as Json;
      const schema = m.payload.schema as Json;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const fields = Object.keys((schema.properties as Json | undefined) ?? {})
        .map((f) => (required.has(f) ? `\`${f}\`` : `\`${f}\`?`))
        .join(', ');
      lines.push(
        `#### ${name}`,
        '',
        cell(m.summary),
        '',
        `- Subject \`${m['x-schema-registry'].subject}\`, compatibility **${m['x-schema-registry'].compatibility}**; header \`type: ${name}\``,
        `- Key \`${m.bindings.kafka.key.description}\`; de-duplicate by ${cell(m['x-idempotency-key'])}`,
        `- Fields: ${fields}`,
        '',
      );
    }
  }
  return lines.join('\n');
}

/** Both files before formatting (the generator and the test run them through prettier), keyed by path. */
export function asyncApiFiles(doc: Json): Record<string, string> {
  return {
    'docs/asyncapi.json': JSON.stringify(doc),
    'docs/events.md': renderEventsMarkdown(doc),
  };
}
