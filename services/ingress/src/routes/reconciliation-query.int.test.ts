import { randomUUID } from 'node:crypto';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { reconciliationRows, type RegisteredOperation } from './reconciliation-query';

/**
 * The reconciliation report read prefix by prefix of `registeredAt` (decision 0069) returns what one
 * range query returned before it: the same operations, in `registeredAt` then `_id` order, cut at the
 * same row when the limit falls in the middle of a day, within the caller's business units.
 */
describe('reconciliationRows on the real store', () => {
  let client: MongoClient;
  let db: Db;
  let operations: Collection<RegisteredOperation>;
  const start = Date.UTC(2026, 4, 16, 20, 0, 0);

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_recon_${randomUUID().slice(0, 8)}`);
    operations = db.collection<RegisteredOperation>('operations');
    await operations.createIndex({ registeredAt: 1 });
    // Three operations an hour over five days, three business units; some share a registration instant.
    await operations.insertMany(
      Array.from({ length: 360 }, (_, n) => {
        const businessUnit = ['DEMO', 'OTHER', 'THIRD'][n % 3]!;
        return {
          _id: `${businessUnit}:OP-${String(n).padStart(4, '0')}`,
          businessUnit,
          extId: `OP-${n}`,
          registeredAt: new Date(start + Math.floor(n / 3) * 3_600_000).toISOString(),
        };
      }),
    );
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  const oneRange = async (scope: object, from: string, till: string, max: number) =>
    (
      await operations
        .find(
          { ...scope, registeredAt: { $gte: from, $lte: till } },
          { projection: { extId: 1, businessUnit: 1 } },
        )
        .sort({ registeredAt: 1, _id: 1 })
        .limit(max)
        .toArray()
    ).map((d) => d._id);

  it.each([
    [{}, '2026-05-16T00:00:00.000Z', '2026-05-31T23:59:59.999Z', 10_000],
    [{}, '2026-05-17T06:30:00.000Z', '2026-05-19T01:00:00.000Z', 10_000],
    [{ businessUnit: 'DEMO' }, '2026-05-17T00:00:00.000Z', '2026-05-18T23:59:59.999Z', 10_000],
    [
      { businessUnit: { $in: ['DEMO', 'THIRD'] } },
      '2026-05-16T00:00:00.000Z',
      '2026-06-30T00:00:00.000Z',
      10_000,
    ],
    // The limit falls in the second day of the window: the same first rows.
    [{}, '2026-05-16T00:00:00.000Z', '2026-05-20T00:00:00.000Z', 100],
    [{}, '2026-05-20T00:00:00.000Z', '2026-05-16T00:00:00.000Z', 10_000],
  ])('scope %j, %s to %s, at most %d: the rows of one range query', async (scope, from, till, max) => {
    const expected = await oneRange(scope, from, till, max);
    const rows = await reconciliationRows(operations, scope, from, till, max);
    expect(rows.map((r) => r._id)).toEqual(expected);
    expect(rows.every((r) => typeof r.extId === 'string' && typeof r.businessUnit === 'string')).toBe(true);
  });

  it('returns nothing for a window without operations', async () => {
    expect(
      await reconciliationRows(operations, {}, '2000-01-01T00:00:00.000Z', '2000-01-02T23:59:59.999Z', 10),
    ).toEqual([]);
  });
});
