import { MongoBulkWriteError, MongoNetworkError } from 'mongodb';
import { accountsForEvery, isDuplicateKey, isDuplicateKeyOnly, writeErrorsOf } from './write-errors';

/**
 * The driver reports a connection lost in the middle of an insertMany as a MongoBulkWriteError with no
 * write errors (node_modules/mongodb/lib/bulk/common.js: "a driver related error not a bulk op error").
 * Read as "every document inserted", it let the ingress use data keys that were never stored (the fault
 * suite's database outage found it): such an error must account for every document or count as failed.
 */
describe('accountsForEvery', () => {
  const result = (insertedCount: number) => ({ insertedCount }) as never;

  it('refuses a bulk error made from a lost connection: no write errors, nothing known inserted', () => {
    const err = new MongoBulkWriteError(new MongoNetworkError('connection closed'), result(0));
    expect(err.writeErrors).toEqual([]);
    expect(accountsForEvery(err, 3, 0)).toBe(false);
  });

  it('accepts duplicate-key errors that, with the inserted ones, cover every document', () => {
    const err = new MongoBulkWriteError(
      { message: 'E11000', code: 11000, writeErrors: [{ index: 1, code: 11000 }] as never },
      result(2),
    );
    expect(accountsForEvery(err, 3, 1)).toBe(true);
    expect(accountsForEvery(err, 4, 1)).toBe(false);
  });

  it('refuses a write concern error even when the counts add up', () => {
    const err = Object.assign(
      new MongoBulkWriteError({ message: 'E11000', code: 11000, writeErrors: [] }, result(3)),
      { writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } },
    );
    expect(accountsForEvery(err, 3, 0)).toBe(false);
  });
});

/**
 * The driver gives a bulk write error the code of its first write error (node_modules/mongodb/lib/bulk/
 * common.js, handleWriteError), whatever the others were. `err.code === 11000` on an unordered insertMany
 * therefore also said "duplicates only" when another document had failed for another reason, and that
 * document was dropped without a word (the classifier seed and the override-expiry scanner read it so).
 */
describe('duplicate keys', () => {
  const bulk = (insertedCount: number, first: number, ...rest: number[]) =>
    new MongoBulkWriteError(
      {
        message: 'write operation failed',
        code: first,
        writeErrors: [first, ...rest].map((code, index) => ({ code, index, errmsg: `e${index}` })) as never,
      },
      { insertedCount } as never,
    );

  it("reads every write error, in the driver's form and nested under err", () => {
    expect(writeErrorsOf(bulk(1, 11000, 2))).toEqual([
      { code: 11000, index: 0 },
      { code: 2, index: 1 },
    ]);
    expect(writeErrorsOf({ writeErrors: { err: { code: 11000, index: 3 } } })).toEqual([
      { code: 11000, index: 3 },
    ]);
    expect(writeErrorsOf(new Error('no bulk'))).toEqual([]);
  });

  it('takes a bulk error of duplicates only that covers every document as already written', () => {
    expect(isDuplicateKeyOnly(bulk(1, 11000, 11000), 3)).toBe(true);
  });

  it('refuses a bulk error whose first error is a duplicate but another is not', () => {
    const mixed = bulk(1, 11000, 2);
    expect(mixed.code).toBe(11000);
    expect(isDuplicateKeyOnly(mixed, 3)).toBe(false);
    expect(isDuplicateKey(mixed)).toBe(false);
  });

  it('refuses duplicates that do not account for every document (a connection lost mid-command)', () => {
    expect(isDuplicateKeyOnly(bulk(0, 11000), 3)).toBe(false);
    expect(
      isDuplicateKeyOnly(
        new MongoBulkWriteError(new MongoNetworkError('closed'), { insertedCount: 0 } as never),
        3,
      ),
    ).toBe(false);
  });

  it("takes a single write's E11000 as a duplicate, any other code as a failure", () => {
    expect(isDuplicateKey(Object.assign(new Error('E11000 duplicate key'), { code: 11000 }))).toBe(true);
    expect(isDuplicateKey(Object.assign(new Error('other'), { code: 2 }))).toBe(false);
    expect(isDuplicateKey(undefined)).toBe(false);
  });
});
