import { randomUUID } from 'node:crypto';
import { MongoClient, type Db, type Document } from 'mongodb';
import { findByIds } from './find-by-ids';
import { customerFilter } from './stream-filters';

/**
 * The hot reads of every service go by `_id`: one (`{_id}`) or many at once (`{_id: {$in}}`, the keys
 * of a consumed batch). On the embedded FerretDB v1 both are served by the unique `_id` index only
 * thanks to our patches (deploy/local/stack/ferretdb/patches 0001 and 0006, decisions 0009 and 0032);
 * without them each read scans the collection. On MongoDB the `_id` index serves both natively. A build
 * of FerretDB without those patches fails here instead of slowing every service down unseen.
 */
describe('reads by _id and by a list of _id use the _id index', () => {
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_ids_${randomUUID().slice(0, 8)}`);
    await db
      .collection<{ _id: string; n: number }>('docs')
      .insertMany(Array.from({ length: 300 }, (_, n) => ({ _id: `BU1:C-${n}`, n })));
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  const explain = (filter: Document) => db.command({ explain: { find: 'docs', filter } });
  /** Whether the plan reads the `_id` index rather than the whole collection. */
  const usesIdIndex = (plan: Document): boolean => {
    const text = JSON.stringify(plan);
    if (plan.serverInfo?.ferretdbVersion !== undefined)
      return plan.filterPushdown === true && /USING INDEX \S+__id_/.test(text);
    return !text.includes('COLLSCAN') && /IDHACK|IXSCAN|EXPRESS_IXSCAN|CLUSTERED_IXSCAN/.test(text);
  };

  /**
   * The `_id` index serves a filter that has other conditions too (FerretDB's `filterPushdown` says only
   * whether the whole filter was pushed down, so its SQL plan is read).
   */
  const expectIdIndexServes = (plan: Document): void => {
    if (plan.serverInfo?.ferretdbVersion !== undefined)
      expect(JSON.stringify(plan)).toMatch(/USING INDEX \S+__id_/);
    else expect(usesIdIndex(plan)).toBe(true);
  };

  it('finds one document by _id through the index', async () => {
    expect(usesIdIndex(await explain({ _id: 'BU1:C-7' }))).toBe(true);
    expect(await db.collection('docs').findOne({ _id: 'BU1:C-7' } as Document)).toEqual({
      _id: 'BU1:C-7',
      n: 7,
    });
  });

  it('finds many documents by a list of _id through the index, and only those', async () => {
    const ids = ['BU1:C-1', 'BU1:C-150', 'BU1:C-299', 'BU1:ABSENT', 'BU1:C-150'];
    expect(usesIdIndex(await explain({ _id: { $in: ids } }))).toBe(true);
    const found = await db
      .collection('docs')
      .find({ _id: { $in: ids } } as Document)
      .toArray();
    expect(found.map((d) => d.n).sort((a, b) => a - b)).toEqual([1, 150, 299]);
  });

  /**
   * Conditional reads and writes by `_id` (a version guard, a key generation, a reservation's command)
   * and the pages of long jobs (`{...filter, _id: {$in}}`, pagesById): unpatched FerretDB read the whole
   * collection for each (10 s at 104,000 customers; decision 0063). Patch 0006 pushes the `_id` clause
   * down (FerretDB's `filterPushdown` says only whether the whole filter was), the handler applies the rest.
   */
  it.each([
    [{ _id: 'BU1:C-299', n: { $lt: 1000 } }, [299]],
    [{ _id: 'BU1:C-299', n: 7 }, []],
    [{ n: { $gte: 150 }, _id: { $in: ['BU1:C-1', 'BU1:C-150', 'BU1:C-299', 'BU1:ABSENT'] } }, [150, 299]],
  ])('serves %j from the _id index and applies the other conditions', async (filter, found) => {
    const plan = await explain(filter);
    expectIdIndexServes(plan);
    const docs = await db
      .collection('docs')
      .find(filter as Document)
      .toArray();
    expect(docs.map((d) => d.n).sort((a, b) => a - b)).toEqual(found);
  });

  it('customerFilter finds one customer by business unit and external id through the _id index', async () => {
    const customers = db.collection<{ _id: string; businessUnit: string; customerExtId: string }>(
      'customers',
    );
    await customers.insertMany([
      { _id: 'BU1:C-1', businessUnit: 'BU1', customerExtId: 'C-1' },
      { _id: 'BU1:C-2', businessUnit: 'BU1', customerExtId: 'C-2' },
    ]);
    const plan = await db.command({ explain: { find: 'customers', filter: customerFilter('BU1', 'C-2') } });
    expectIdIndexServes(plan);
    expect(await customers.findOne(customerFilter('BU1', 'C-2'))).toEqual({
      _id: 'BU1:C-2',
      businessUnit: 'BU1',
      customerExtId: 'C-2',
    });
    expect(await customers.findOne(customerFilter('BU2', 'C-2'))).toBeNull();
  });

  it('findByIds reads a long list in finds of 500: every document once, absent ids left out, projection kept', async () => {
    const ids = [
      ...Array.from({ length: 300 }, (_, n) => `BU1:C-${n}`),
      ...Array.from({ length: 300 }, (_, n) => `BU1:ABSENT-${n}`),
      'BU1:C-7',
      'BU1:C-299',
    ];
    const found = await findByIds(db.collection<{ _id: string; n: number }>('docs'), ids, {
      projection: { _id: 1 },
    });
    expect(found.size).toBe(300);
    expect(found.get('BU1:C-299')).toEqual({ _id: 'BU1:C-299' });
    expect(found.has('BU1:ABSENT-0')).toBe(false);
    expect(await findByIds(db.collection<{ _id: string; n: number }>('docs'), [])).toEqual(new Map());
  });

  it('still answers lists it cannot serve from the index (mixed types), correctly', async () => {
    const found = await db
      .collection('docs')
      .find({ _id: { $in: ['BU1:C-2', 42] } } as Document)
      .toArray();
    expect(found.map((d) => d.n)).toEqual([2]);
  });
});
