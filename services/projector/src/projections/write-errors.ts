import type { MongoServerError } from 'mongodb';

/** The per-operation errors of a failed unordered `bulkWrite` / `insertMany` (none for other failures). */
export function writeErrorsOf(err: unknown): { code?: number; index?: number }[] {
  const writeErrors = (err as { writeErrors?: unknown } | undefined)?.writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list as { code?: number; index?: number }[];
}

/** Whether a failed write failed only on duplicate keys: for documents keyed by event id, "already applied". */
export function isDuplicateKeyOnly(err: unknown): boolean {
  if ((err as MongoServerError | undefined)?.code === 11000) return true;
  const list = writeErrorsOf(err);
  return list.length > 0 && list.every((w) => w.code === 11000);
}
