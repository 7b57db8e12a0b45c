import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser, DiagnosticSeverity } from '@asyncapi/parser';
import { loadMessageSchemas } from '@crs/contracts';
import { buildAsyncApi, TopicContracts } from './asyncapi';
import { asyncApiFiles } from './asyncapi-markdown';
import { MessageSerde } from './serde';
import { Topics } from './topics';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is walked field by field

const doc = buildAsyncApi() as Json;
const schemas = loadMessageSchemas();

describe('AsyncAPI document of the topics', () => {
  it('validates with the AsyncAPI parser without errors', async () => {
    const { document, diagnostics } = await new Parser().parse(doc as never);
    const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
    expect(errors.map((d) => `${d.path.join('/')}: ${d.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    expect(document?.channels().length).toBe(Object.keys(Topics).length);
  });

  it('has a channel for every topic, with its address, partitions, retention and cleanup policy', () => {
    for (const [key, spec] of Object.entries(Topics)) {
      const channel = doc.channels[key];
      expect(channel.address).toBe(spec.name);
      expect(channel.bindings.kafka.partitions).toBe('partitions' in spec ? spec.partitions : 6);
      expect(channel.bindings.kafka.topicConfiguration).toMatchObject({
        'retention.ms': spec.retentionMs,
        'cleanup.policy': [spec.cleanupPolicy],
      });
      expect(channel.description).toContain('Key: ');
    }
  });

  it('names the deployment prefix and partition count', () => {
    const prefixed = buildAsyncApi({ topicPrefix: 'acme.', partitions: 12 }) as Json;
    expect(prefixed.channels.customerEvents.address).toBe('acme.crs.customer.events.v1');
    expect(prefixed.channels.customerEvents.bindings.kafka.partitions).toBe(12);
    expect(prefixed.channels.screeningLists.bindings.kafka.partitions).toBe(1);
  });

  it('describes every message schema of schemas/ with its subject, BACKWARD rule and type header', () => {
    expect(schemas.length).toBeGreaterThan(20);
    for (const m of schemas) {
      const message = doc.components.messages[m.type];
      expect(message).toBeDefined();
      expect(message['x-schema-registry']).toEqual({
        subject: MessageSerde.subjectFor(m.kind, m.type),
        compatibility: 'BACKWARD',
        schemaType: 'JSON',
      });
      expect(message.headers.required).toEqual(['type']);
      expect(message.headers.properties.type.const).toBe(m.type);
      const { $id: _id, $schema: _s, ...content } = m.schema;
      expect(message.payload.schema).toEqual({
        $schema: 'http://json-schema.org/draft-07/schema#',
        ...content,
      });
    }
  });

  it('puts the customer events on crs.customer.events.v1 with idempotency by eventId', () => {
    const channel = doc.channels.customerEvents;
    const types = schemas.filter((m) => m.kind === 'events').map((m) => m.type);
    expect(Object.keys(channel.messages).sort()).toEqual([...types].sort());
    for (const t of types) expect(doc.components.messages[t]['x-idempotency-key']).toBe('eventId');
    expect(doc.operations.consumeCustomerEvents['x-delivery']).toEqual({
      isolationLevel: 'read_committed',
      delivery: 'at-least-once',
      ordering: 'per key',
    });
    expect(doc.info.description).toMatch(/read_committed/);
    expect(doc.info.description).toMatch(/at least once/);
  });

  it('refuses a message schema that no topic carries', () => {
    const stray = {
      kind: 'events' as const,
      type: 'Stray',
      subject: 'crs.events.Stray',
      schema: { title: 'Stray' },
    };
    const original = TopicContracts.customerEvents.carries;
    TopicContracts.customerEvents.carries = { kind: 'events', types: [] };
    try {
      expect(() => buildAsyncApi({}, [...schemas, stray])).toThrow(/no topic carries .*crs\.events\.Stray/);
    } finally {
      TopicContracts.customerEvents.carries = original;
    }
  });

  it('is what docs/asyncapi.json and docs/events.md hold (npm run gen writes them)', () => {
    const root = join(__dirname, '../../..');
    // prettier's CLI in a child process: its API needs ESM support that jest lacks.
    const prettier = require.resolve('prettier/bin/prettier.cjs');
    for (const [path, raw] of Object.entries(asyncApiFiles(buildAsyncApi()))) {
      const content = execFileSync(process.execPath, [prettier, '--stdin-filepath', join(root, path)], {
        input: raw,
        encoding: 'utf8',
      });
      expect({ path, content: readFileSync(join(root, path), 'utf8') }).toEqual({ path, content });
    }
  });
});
