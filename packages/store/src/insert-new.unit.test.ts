import { MongoBulkWriteError, MongoNetworkError } from 'mongodb';
import { accountsForEvery } from './insert-new';

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
