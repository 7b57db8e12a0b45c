import type { Collection, Document } from 'mongodb';

/** At most this many documents per insertMany (one command, one SQLite transaction on FerretDB). */
const MAX_BULK = 500;

/**
 * Inserts documents unordered, at most MAX_BULK per command, and returns the indexes (into `docs`) of
 * those whose `_id` already existed. Any other write error is thrown.
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
      const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
      const list = (Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : []) as {
        code?: number;
        index?: number;
        err?: { code?: number; index?: number };
      }[];
      if (list.length === 0) throw err;
      for (const e of list) {
        const code = e.code ?? e.err?.code;
        const index = e.index ?? e.err?.index;
        if (code !== 11000 || index === undefined) throw err;
        duplicates.push(from + index);
      }
    }
  }
  return duplicates;
}
