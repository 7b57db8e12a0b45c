import type { Collection, Document, Filter } from 'mongodb';
import type { StoreDialect } from './mongo';

/** At most this many `_id`s in one `{_id: {$in}}` (FerretDB pushes longer lists down no more: patch 0006). */
const MAX_IDS_PER_FIND = 10_000;

export interface PagesByIdOptions {
  /** The fields each document of a page carries (`_id` always); the whole documents without it. */
  projection?: Document;
  /** Documents per page (at most; a page can hold fewer). */
  pageSize: number;
  /** Resume after this `_id` (exclusive), the last one a previous pass handled; null from the start. */
  after: string | null;
  dialect: StoreDialect;
  /**
   * FerretDB only: called while the matching `_id`s are read, every `idScanReportEvery` ids and once at the
   * end with the count so far. On a large collection that read takes minutes: a job renews its lease and
   * reports progress here.
   */
  onIdScan?: (read: number) => Promise<void> | void;
  /** Ids between two `onIdScan` calls (default 20,000). */
  idScanReportEvery?: number;
}

/**
 * MongoDB's order of string `_id`s: their UTF-8 bytes. JavaScript compares UTF-16 code units, which
 * orders the same except for characters above U+FFFF against U+E000-U+FFFF.
 */
export function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Sorts string `_id`s in MongoDB's order, in place. */
export function sortIds(ids: string[]): string[] {
  // Most ids hold nothing above U+D7FF: then UTF-16 order is the byte order, and far cheaper.
  if (!ids.some((id) => /[\uD800-\uFFFF]/.test(id))) return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const keys = new Map(ids.map((id) => [id, Buffer.from(id, 'utf8')]));
  return ids.sort((a, b) => Buffer.compare(keys.get(a)!, keys.get(b)!));
}

/**
 * The documents that match `filter`, in `_id` order, page by page: for the jobs that go through a whole
 * collection and record the last `_id` they handled so that they can resume (the retention job, the
 * re-evaluation after a matrix activation, retrospective monitoring, the override-expiry scan, KEK
 * rotation). Decision 0063.
 *
 * - MongoDB: keyset pages, `{...filter, _id: {$gt: after}}` sorted by `_id` with a limit; the `_id`
 *   index serves each page.
 * - FerretDB v1 sorts in Go after reading every matching document, for every page: a page of 500 took
 *   14 s at 104,000 customers, so one pass of a job was quadratic (47 minutes there, days at a million).
 *   So the matching `_id`s are read once (no sort: one scan), sorted here, and each page is read by
 *   `{...filter, _id: {$in: page}}`, which the `_id` index serves (patch 0006). A document that stopped
 *   matching between the two reads is left out (a page can be short or skipped); one that started to
 *   match after the first read is met by the next pass, as one inserted behind a MongoDB page is.
 *
 * The end of the pages is the end of the generator, never a short page.
 */
export async function* pagesById<T extends Document & { _id: string }>(
  collection: Collection<T>,
  filter: Filter<T>,
  opts: PagesByIdOptions,
): AsyncGenerator<T[]> {
  if ('_id' in filter) throw new Error('pagesById: the filter must not constrain _id itself');
  const from = (after: string | null) =>
    (after === null ? filter : { ...filter, _id: { $gt: after } }) as Filter<T>;
  if (opts.dialect === 'mongodb') {
    let after = opts.after;
    for (;;) {
      const rows = (await collection
        .find(from(after), { projection: opts.projection })
        .sort({ _id: 1 })
        .limit(opts.pageSize)
        .toArray()) as T[];
      if (rows.length > 0) yield rows;
      if (rows.length < opts.pageSize) return;
      after = rows[rows.length - 1]!._id;
    }
  }
  const ids: string[] = [];
  const every = opts.idScanReportEvery ?? 20_000;
  for await (const d of collection.find(from(opts.after), { projection: { _id: 1 }, batchSize: 5000 })) {
    if (ids.push(d._id as string) % every === 0) await opts.onIdScan?.(ids.length);
  }
  await opts.onIdScan?.(ids.length);
  sortIds(ids);
  const size = Math.max(1, Math.min(opts.pageSize, MAX_IDS_PER_FIND));
  for (let at = 0; at < ids.length; at += size) {
    const page = ids.slice(at, at + size);
    const order = new Map(page.map((id, i) => [id, i]));
    const rows = (await collection
      .find({ ...filter, _id: { $in: page } } as Filter<T>, { projection: opts.projection })
      .toArray()) as T[];
    rows.sort((a, b) => order.get(a._id)! - order.get(b._id)!);
    if (rows.length > 0) yield rows;
  }
}

/** A page, and whether it is the last one. */
export interface PageWithEnd<T> {
  rows: T[];
  last: boolean;
}

/**
 * Pages with a look-ahead: each says whether it is the last, so that a job can write "done" with the
 * progress of its last page; an empty pass gives one empty last page (the job still records that it is
 * done). The next page is read before the current one is handed out.
 */
export async function* withLastPage<T>(pages: AsyncIterable<T[]>): AsyncGenerator<PageWithEnd<T>> {
  const it = pages[Symbol.asyncIterator]();
  try {
    let current = await it.next();
    if (current.done) {
      yield { rows: [], last: true };
      return;
    }
    for (;;) {
      const next = await it.next();
      yield { rows: current.value, last: next.done === true };
      if (next.done) return;
      current = next;
    }
  } finally {
    // A consumer that stops early ends the source too.
    await it.return?.();
  }
}
