import { randomUUID } from 'node:crypto';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { insertNew } from './insert-new';
import { isDuplicateKey, isDuplicateKeyOnly, writeErrorsOf } from './write-errors';

/**
 * Duplicate keys as the store reports them (FerretDB here, MongoDB under testcontainers): an unordered
 * insertMany that meets an existing `_id` and a document the store refuses comes back with the code of
 * its first write error, E11000, so reading `err.code` took the refused document for "already there".
 */
describe('duplicate keys from the store', () => {
  let client: MongoClient;
  let db: Db;
  let docs: Collection<{ _id: string | string[]; n?: number }>;

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_dup_${randomUUID().slice(0, 8)}`);
    docs = db.collection('docs');
    await docs.insertOne({ _id: 'there', n: 0 });
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  const failureOf = async (write: Promise<unknown>): Promise<unknown> =>
    write.then(
      () => {
        throw new Error('the write succeeded');
      },
      (err: unknown) => err,
    );

  it('a duplicate beside a refused document is a failure, though the error says E11000', async () => {
    const batch = [{ _id: 'there' }, { _id: ['an array is no _id'] }, { _id: `new-${randomUUID()}` }];
    const err = await failureOf(docs.insertMany(batch, { ordered: false }));
    expect((err as { code?: number }).code).toBe(11000);
    expect(writeErrorsOf(err).map((w) => w.index)).toEqual([0, 1]);
    expect(writeErrorsOf(err)[1]!.code).not.toBe(11000);
    expect(isDuplicateKeyOnly(err, batch.length)).toBe(false);
    expect(isDuplicateKey(err)).toBe(false);
    // insertNew, which the seeds and markers now use, throws it rather than report one duplicate.
    await expect(
      insertNew(docs, [{ _id: 'there' }, { _id: ['still no _id'] }, { _id: `new-${randomUUID()}` }]),
    ).rejects.toMatchObject({ code: 11000 });
  });

  it('duplicates only, with the rest inserted, read as already written', async () => {
    const fresh = `new-${randomUUID()}`;
    const err = await failureOf(docs.insertMany([{ _id: 'there' }, { _id: fresh }], { ordered: false }));
    expect(isDuplicateKeyOnly(err, 2)).toBe(true);
    expect(await docs.countDocuments({ _id: fresh })).toBe(1);
    expect(await insertNew(docs, [{ _id: `new-${randomUUID()}` }, { _id: 'there' }])).toEqual([1]);
  });

  it('a single insert of an existing _id is a duplicate', async () => {
    expect(isDuplicateKey(await failureOf(docs.insertOne({ _id: 'there' })))).toBe(true);
  });
});
