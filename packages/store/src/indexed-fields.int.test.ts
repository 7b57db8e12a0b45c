import { randomUUID } from 'node:crypto';
import { MongoClient, type Db, type Document } from 'mongodb';

/**
 * A prefix of an indexed field, `{field: {$regex: '^<prefix>'}}`, and a string or a list of strings,
 * `{field: 'x'}` / `{field: {$in: [...]}}`, are read from the field's index: by MongoDB natively, by the
 * embedded FerretDB v1 thanks to our patch 0008 (decisions 0069 and 0070), without which it reads the
 * whole collection (the operations reconciliation report: 14-15 s at 200,000 operations; the callback
 * dispatcher's lanes: 3.3-3.6 s at 100,000 queued deliveries).
 * The pushdown may only narrow what is read, never what is found: the same filters with a pattern that
 * is not pushed down (an escaped `-`, the same prefix) must find exactly the same documents, arrays
 * (whose elements `$regex` matches), values with escaped characters and non-strings included (FerretDB
 * v1 stores no nested arrays).
 */
describe('a prefix or strings of an indexed field are read from its index, and find what a scan finds', () => {
  let client: MongoClient;
  let db: Db;
  const values: unknown[] = [
    '2026-05-17T23:59:59.999Z',
    '2026-05-18T00:00:00.000Z',
    '2026-05-18T12:00:00.000Z',
    '2026-05-18T23:59:59.999Z',
    '2026-05-18',
    '2026-05-1',
    '2026-05-18"quoted\\',
    '2026-05-18<html>&',
    '2026-05-18\u2028',
    '2026-05-19T00:00:00.000Z',
    '2026-05-2',
    ['2026-05-01', '2026-05-18T08:00:00.000Z'],
    ['2026-05-01'],
    { nested: '2026-05-18T10:00:00.000Z' },
    20260518,
    null,
    true,
  ];

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_prefix_${randomUUID().slice(0, 8)}`);
    const docs = db.collection<{ _id: string; at?: unknown; bu: string }>('docs');
    await docs.createIndex({ at: 1 });
    await docs.insertMany([
      ...values.map((at, n) => ({ _id: `v-${n}`, at, bu: n % 2 ? 'A' : 'B' })),
      { _id: 'missing', bu: 'A' },
      ...Array.from({ length: 300 }, (_, n) => ({
        _id: `fill-${n}`,
        at: new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString(),
        bu: 'A',
      })),
    ]);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  const ids = async (filter: Document) =>
    (await db.collection('docs').find(filter).sort({ _id: 1 }).toArray()).map((d) => String(d._id));
  const plan = async (filter: Document) =>
    JSON.stringify(await db.command({ explain: { find: 'docs', filter } }));

  it.each([
    [{ at: { $regex: '^2026-05-18' } }, { at: { $regex: '^2026\\-05-18' } }],
    [{ at: { $regex: '^2026-05' } }, { at: { $regex: '^2026\\-05' } }],
    [
      { at: { $regex: '^2026-05-18', $gte: '2026-05-18T00:00:00.000Z', $lte: '2026-05-18T23:59:59.999Z' } },
      { at: { $regex: '^2026\\-05-18', $gte: '2026-05-18T00:00:00.000Z', $lte: '2026-05-18T23:59:59.999Z' } },
    ],
    [
      { bu: 'A', at: { $regex: '^2026-01-0' } },
      { bu: 'A', at: { $regex: '^2026\\-01-0' } },
    ],
    [{ at: '2026-05-18' }, { at: { $eq: '2026-05-18' } }],
    [{ at: '2026-05-01' }, { at: { $eq: '2026-05-01' } }],
    [{ at: '2026-05-18"quoted\\' }, { at: { $eq: '2026-05-18"quoted\\' } }],
    [
      { at: { $in: ['2026-05-18T12:00:00.000Z', '2026-05-18\u2028', '2026-05-01', 'absent'] } },
      {
        at: { $in: ['2026-05-18T12:00:00.000Z', '2026-05-18\u2028', '2026-05-01', 'absent'], $exists: true },
      },
    ],
    [
      { at: { $in: ['2026-01-01T05:00:00.000Z', '2026-01-02T00:00:00.000Z'] }, bu: 'A' },
      { at: { $in: ['2026-01-01T05:00:00.000Z', '2026-01-02T00:00:00.000Z'], $exists: true }, bu: 'A' },
    ],
  ])('%j is served by the index and finds what %j finds', async (pushed, scanned) => {
    const expected = await ids(scanned);
    expect(expected.length).toBeGreaterThan(0);
    expect(await ids(pushed)).toEqual(expected);
    const text = await plan(pushed);
    if (text.includes('ferretdbVersion')) expect(text).toMatch(/USING INDEX \S+_at_1/);
    else expect(text).toMatch(/IXSCAN/);
  });

  it('finds the strings with the prefix and the arrays holding one, nothing else', async () => {
    expect(await ids({ at: { $regex: '^2026-05-18' } })).toEqual(
      ['v-1', 'v-11', 'v-2', 'v-3', 'v-4', 'v-6', 'v-7', 'v-8'].sort(),
    );
  });

  it('leaves a pattern with options, or with regular-expression syntax, to the scan, with the same result', async () => {
    expect(await ids({ at: { $regex: '^2026-05-18T0', $options: 'i' } })).toEqual(['v-1', 'v-11']);
    expect(await ids({ at: { $regex: '^2026-05-18T(00|08)' } })).toEqual(['v-1', 'v-11']);
  });
});
