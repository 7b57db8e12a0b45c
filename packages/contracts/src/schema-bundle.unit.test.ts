import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntityTypes, OperationEventTypes, ScreeningLists } from './generated/messages';
import { loadMessageSchemas, schemasDir } from './message-schemas';
import { bundleSchema, hasExternalRef } from './schema-bundle';

/** sha256 of each registered schema's text (the JSON as loadMessageSchemas hands it to the registry serde). */
const registered = JSON.parse(
  readFileSync(join(__dirname, 'registered-schemas.sha256.json'), 'utf8'),
) as Record<string, string>;
const sha256 = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
const readSchema = (path: string) =>
  JSON.parse(readFileSync(join(schemasDir(), path), 'utf8')) as Record<string, unknown>;

describe('loadMessageSchemas: bundled message schemas (decision 0029)', () => {
  const schemas = loadMessageSchemas();

  it('leaves no reference to another document in any message schema', () => {
    expect(schemas.length).toBeGreaterThan(0);
    for (const { subject, schema } of schemas)
      expect([subject, hasExternalRef(schema)]).toEqual([subject, false]);
  });

  it('registers the same text as before: every subject and its schema hash is in the committed list', () => {
    // A change here is a new registered version of the subject: deliberate, with a new hash committed.
    expect(Object.fromEntries(schemas.map(({ subject, schema }) => [subject, sha256(schema)]))).toEqual(
      registered,
    );
  });

  it('reads the shared envelope from schemas/common/, which is no message schema', () => {
    expect(schemas.some(({ schema }) => String(schema.$id).includes('/common/'))).toBe(false);
    const created = readSchema('events/customer-created.v1.schema.json') as {
      properties: Record<string, unknown>;
    };
    expect(hasExternalRef(created)).toBe(true);
    expect(schemas.find(({ type }) => type === 'CustomerCreated')?.schema.properties).toMatchObject({
      eventId: { type: 'string', description: 'Unique, stable id (also the callback ce-id).' },
      streamVersion: { type: 'integer', minimum: 1 },
    });
  });
});

describe('bundleSchema', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'crs-bundle-'));
    mkdirSync(join(root, 'common'));
    mkdirSync(join(root, 'events'));
    const defs = {
      $defs: { id: { type: 'string' }, local: { $ref: '#/$defs/id' }, 'a/b': { type: 'integer' } },
    };
    writeFileSync(join(root, 'common/defs.json'), JSON.stringify(defs));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const bundle = (schema: object) => bundleSchema(schema, join(root, 'events/e.json'), root);

  it("puts the target's keys first, then the referring node's own keys; keeps local refs", () => {
    expect(
      bundle({
        properties: {
          a: { $ref: '../common/defs.json#/$defs/id', description: 'A' },
          b: { $ref: '../common/defs.json#/$defs/a~1b' },
          c: { $ref: '#/$defs/x' },
        },
      }),
    ).toEqual({
      properties: {
        a: { type: 'string', description: 'A' },
        b: { type: 'integer' },
        c: { $ref: '#/$defs/x' },
      },
    });
    expect(JSON.stringify(bundle({ a: { $ref: '../common/defs.json#/$defs/id', description: 'A' } }))).toBe(
      '{"a":{"type":"string","description":"A"}}',
    );
  });

  it('rejects a target holding a local ref, a missing target and a ref out of the schemas tree', () => {
    expect(() => bundle({ $ref: '../common/defs.json#/$defs/local' })).toThrow(/local \$ref/);
    expect(() => bundle({ $ref: '../common/defs.json#/$defs/none' })).toThrow(/designates nothing/);
    expect(() => bundle({ $ref: '../../outside.json' })).toThrow(/leaves/);
  });
});

describe('generated value lists (generated/messages.ts)', () => {
  it('equal what schemas/ says', () => {
    const matrix = readSchema('risk/risk-matrix.v1.schema.json') as {
      $defs: Record<string, { enum: string[] }>;
    };
    const parts = readSchema('http/customer-parts.v1.schema.json') as {
      $defs: Record<string, { enum: string[] }>;
    };
    expect(ScreeningLists).toEqual(matrix.$defs.screeningList?.enum);
    expect(EntityTypes).toEqual(parts.$defs.EntityType?.enum);
    expect(EntityTypes).toEqual(matrix.$defs.entityType?.enum);
    const streamEvents = readdirSync(join(schemasDir(), 'operations'))
      .map((file) => readSchema(`operations/${file}`) as { properties: Record<string, { const?: string }> })
      .filter(({ properties }) => properties.streamVersion !== undefined)
      .map(({ properties }) => properties.type?.const);
    expect([...OperationEventTypes].sort()).toEqual(streamEvents.sort());
    expect([...OperationEventTypes].sort()).toEqual(['OperationArchived', 'OperationRegistered']);
  });
});
