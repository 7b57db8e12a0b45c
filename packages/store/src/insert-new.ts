import type { Collection, Document } from 'mongodb';
import { DUPLICATE_KEY, accountsForEvery, writeErrorsOf } from './write-errors';

/** At most this many documents per insertMany (one command, one SQLite transaction on FerretDB). */
const MAX_BULK = 500;

/**
 * Inserts documents unordered, at most MAX_BULK per command, and returns the indexes (into `docs`) of
 * those whose `_id` already existed. Any other write error is thrown, and so is an error that does not
 * account for every document: a connection lost mid-command comes back as a bulk write error with no
 * (or too few) write errors, and nothing then says which documents were stored.
 */
export async function insertNew<T extends Document>(collection: Collection<T>, docs: T[]): Promise<number[]> {
  const duplicates: number[] = [];
  for (let from = 0; from < docs.length; from += MAX_BULK) {
    const slice = docs.slice(from, from + MAX_BULK);
    try {
      await collection.insertMany(slice as unknown as Parameters<Collection<T>['insertMany']>[0], {
        ordered: false,
      });
    } catch (err) {
      const list = writeErrorsOf(err);
      if (list.length === 0 || !accountsForEvery(err, slice.length, list.length)) throw err;
      for (const e of list) {
        if (e.code !== DUPLICATE_KEY || e.index === undefined) throw err;
        duplicates.push(from + e.index);
      }
    }
  }
  return duplicates;
}
