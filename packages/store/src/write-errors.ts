/** MongoDB's (and FerretDB's) code for a write that met a unique index: E11000. */
export const DUPLICATE_KEY = 11000;

/** One document's failure in a bulk write: its code and its index in the command's documents. */
export interface WriteFailure {
  code?: number;
  index?: number;
}

/**
 * The per-document errors of a failed unordered `insertMany` / `bulkWrite` (none for any other failure).
 * The driver's `WriteError` has `code` and `index`; a plain error document nests them under `err`.
 */
export function writeErrorsOf(err: unknown): WriteFailure[] {
  const writeErrors = (err as { writeErrors?: unknown } | undefined)?.writeErrors;
  const list = (Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : []) as {
    code?: number;
    index?: number;
    err?: { code?: number; index?: number };
  }[];
  return list.map((e) => ({ code: e.code ?? e.err?.code, index: e.index ?? e.err?.index }));
}

/**
 * Whether a single-document write (`insertOne`, an upserting `updateOne`) failed on a duplicate key: the
 * document is there already, written by another writer or an earlier attempt. Not for bulk writes: a bulk
 * error carries the code of its first write error only, whatever the others were (`isDuplicateKeyOnly`).
 */
export function isDuplicateKey(err: unknown): boolean {
  if ((err as { code?: unknown } | undefined)?.code !== DUPLICATE_KEY) return false;
  const list = writeErrorsOf(err);
  return list.every((w) => w.code === DUPLICATE_KEY);
}

/**
 * Whether a failed unordered insert of `documents` documents failed on duplicate keys only, and says so
 * for every document it did not insert: for documents keyed by what they record, "already written". A
 * bulk error whose first write error is E11000 has code 11000 even when another document failed for
 * another reason, and a connection lost mid-command can come back as a bulk error that does not account
 * for every document: both are failures.
 */
export function isDuplicateKeyOnly(err: unknown, documents: number): boolean {
  const list = writeErrorsOf(err);
  return (
    list.length > 0 &&
    list.every((w) => w.code === DUPLICATE_KEY && w.index !== undefined) &&
    accountsForEvery(err, documents, list.length)
  );
}

/** Whether a bulk write error says what happened to every document: inserted, or a write error. */
export function accountsForEvery(err: unknown, documents: number, writeErrors: number): boolean {
  const e = err as {
    writeConcernError?: unknown;
    insertedCount?: unknown;
    result?: { insertedCount?: unknown };
  };
  if (e.writeConcernError !== undefined && e.writeConcernError !== null) return false;
  const inserted = typeof e.insertedCount === 'number' ? e.insertedCount : e.result?.insertedCount;
  return typeof inserted === 'number' && inserted + writeErrors === documents;
}
