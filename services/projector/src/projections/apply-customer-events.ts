import type { AnyBulkWriteOperation, Db } from 'mongodb';
import { CodedError } from '@crs/runtime';
import type { CustomerEvent } from '@crs/contracts';
import {
  DUPLICATE_KEY,
  findByIds,
  groupCommunicationEvents,
  isDuplicateKeyOnly,
  writeErrorsOf,
  type ProjectedCommunicationEvent,
  type CommunicationEventsDoc,
} from '@crs/store';
import {
  projectCustomerEvent,
  type CollectionNames,
  type HistoryDoc,
  type HistoryName,
} from './customer-projection';
import {
  foldCustomer,
  newCustomerDocument,
  type Applied,
  type CustomerWrite,
  type FoldedCustomer,
} from './customer-fold';
import type { StreamVersions } from './stream-versions';

/** At most this many operations per `bulkWrite` / `insertMany` (FerretDB runs one command as one unit). */
export const MAX_BULK_OPERATIONS = 500;

/**
 * The live projector hands `applyCustomerEvents` up to this many events of one fetch at once (a fetch is
 * at most 5 MiB of a partition: a few thousand events). The more of the log one call sees, the more of a
 * customer's events fold into one write of its document, and of a communication's into one document
 * (decision 0051: catching up 130,000 events, chunks of 500 → 5,000 took FerretDB's CPU per event -40 %).
 * The writes themselves still go in slices of `MAX_BULK_OPERATIONS`.
 */
export const MAX_CHUNK_EVENTS = 5_000;

/** A customer write that cannot go on; the consumer retries the chunk whole. */
export class ProjectionWriteError extends CodedError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('PROJECTION_WRITE_FAILED', message, details);
  }
}

/** The live executor for one event: a chunk of one (`applyCustomerEvents`). */
export async function applyCustomerEvent(
  db: Db,
  names: CollectionNames,
  event: CustomerEvent,
): Promise<void> {
  await applyCustomerEvents(db, names, [event]);
}

/** Like Promise.all, but settles only after every write has ended, so a retry never overlaps them. */
async function settleAll(work: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(work);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * The documents to insert for one history read model: `communication_events` folds the chunk's events per
 * communication (decision 0050), the others are one document per event.
 */
export function historyDocuments(
  projection: HistoryName,
  docs: Iterable<HistoryDoc>,
): (HistoryDoc | CommunicationEventsDoc)[] {
  return projection === 'communication_events'
    ? groupCommunicationEvents(docs as Iterable<ProjectedCommunicationEvent>)
    : [...docs];
}

async function inSlices<T>(items: readonly T[], write: (slice: T[]) => Promise<void>): Promise<void> {
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += MAX_BULK_OPERATIONS)
    slices.push(items.slice(i, i + MAX_BULK_OPERATIONS));
  await settleAll(slices.map(write));
}

/**
 * The live executor, for a chunk of events (the projector's consumer hands it up to 5,000 events of one
 * fetch, in partition order). Whatever the chunk holds:
 *
 * - each customer's events are folded in memory into ONE write of its document (`foldCustomer`): an
 *   insert of the whole document when it has none yet (an insert costs FerretDB a fraction of an
 *   update), an update by `_id` guarded by the version otherwise; all in one unordered `bulkWrite`;
 * - history documents (assessments, screenings), keyed by event id, go in one unordered `insertMany` per
 *   collection, where a duplicate key means "already applied"; the chunk's communication events go the
 *   same way folded into one document per communication (`_id` from their event ids: decision 0050);
 * - the customers and the history collections are written at the same time.
 *
 * The version a document holds comes from `versions` (what this instance wrote or read; dropped on
 * every rebalance), else is taken as 0 when the chunk holds the stream's first event (an insert that
 * then collides on `_id` means the document exists: it is read and updated instead), else is read by
 * one `find({_id: {$in}})` per 500 customers (on FerretDB v1 served by the `_id` index only with our patch
 * 0006: decision 0032; unpatched it reads the collection).
 * Every write is idempotent, so a failed chunk is retried whole: the customer document changes only
 * with events newer than its version, the history only gains documents it lacks.
 *
 * Each update carries its version guard in the filter (`{_id, version: {$lt: new}}`): atomic on either
 * store, and served by the `_id` index on both (on FerretDB v1 since patch 0006 pushes an `_id` condition
 * down beside others: decision 0063; before it the guard read the whole collection there, so FerretDB
 * updated by `_id` alone). So a projector that lost its partition and still writes (a zombie after a
 * session timeout) can never take a document back behind what the new owner wrote (decision 0064).
 */
export async function applyCustomerEvents(
  db: Db,
  names: CollectionNames,
  events: readonly CustomerEvent[],
  versions?: StreamVersions,
): Promise<void> {
  const generation = versions?.generation() ?? 0;
  const byStream = new Map<string, Applied[]>();
  const history = new Map<HistoryName, Map<string, HistoryDoc>>();
  for (const event of events) {
    const effect = projectCustomerEvent(event);
    const list = byStream.get(event.streamId) ?? [];
    list.push({ event, effect });
    byStream.set(event.streamId, list);
    for (const ins of effect.inserts) {
      const m = history.get(ins.projection) ?? new Map<string, HistoryDoc>();
      if (!m.has(ins.doc._id)) m.set(ins.doc._id, ins.doc);
      history.set(ins.projection, m);
    }
  }
  const customers = db.collection<CustomerWrite>(names.customers);
  /** The versions the documents hold (0: none), read by `_id` list (`findByIds`). */
  const readVersions = async (streamIds: readonly string[]): Promise<number[]> => {
    const found = await findByIds(customers, streamIds, { projection: { version: 1 } });
    return streamIds.map((streamId) => found.get(streamId)?.version ?? 0);
  };
  const update = (streamId: string, folded: FoldedCustomer): AnyBulkWriteOperation<CustomerWrite> => ({
    updateOne: {
      // Atomic: a document already at this version or past it is left alone (another writer got there).
      filter: { _id: streamId, version: { $lt: folded.version } },
      update: { $set: folded.set },
    },
  });

  try {
    // The version each document holds: remembered; 0 when the chunk starts the stream (the insert
    // checks that guess); else read.
    const stored = new Map<string, number>();
    const guessed = new Set<string>();
    const toRead: string[] = [];
    for (const [streamId, list] of byStream) {
      list.sort((x, y) => x.event.streamVersion - y.event.streamVersion);
      const known = versions?.get(names.customers, streamId);
      if (known !== undefined) stored.set(streamId, known);
      else if (list[0]!.event.streamVersion === 1) {
        stored.set(streamId, 0);
        guessed.add(streamId);
      } else toRead.push(streamId);
    }
    const read = await readVersions(toRead);
    toRead.forEach((streamId, i) => stored.set(streamId, read[i]!));

    const writes: { op: AnyBulkWriteOperation<CustomerWrite>; streamId: string }[] = [];
    const learnt = new Map<string, number>();
    for (const [streamId, list] of byStream) {
      const from = stored.get(streamId)!;
      const folded = foldCustomer(list, from);
      if (!folded) {
        // A guessed 0 with nothing to write stays unknown: the document may exist from a longer chunk.
        if (!guessed.has(streamId)) learnt.set(streamId, from);
        continue;
      }
      writes.push({
        op:
          from === 0
            ? { insertOne: { document: newCustomerDocument(streamId, folded) } }
            : update(streamId, folded),
        streamId,
      });
      learnt.set(streamId, folded.version);
    }

    const existing: string[] = [];
    const writeCustomers = inSlices(writes, async (slice) => {
      try {
        await customers.bulkWrite(
          slice.map((w) => w.op),
          { ordered: false },
        );
      } catch (err) {
        const errors = writeErrorsOf(err);
        if (errors.length === 0 || errors.some((w) => w.code !== DUPLICATE_KEY || w.index === undefined))
          throw err;
        // An insert collided: the document exists (redelivered events, or a guess); update it instead.
        for (const w of errors) existing.push(slice[w.index!]!.streamId);
      }
    });
    const writeHistory = [...history].map(async ([projection, docs]) =>
      inSlices(historyDocuments(projection, docs.values()), async (slice) => {
        try {
          await db.collection<{ _id: string }>(names[projection]).insertMany(slice, { ordered: false });
        } catch (err) {
          if (!isDuplicateKeyOnly(err, slice.length)) throw err;
        }
      }),
    );
    await settleAll([writeCustomers, ...writeHistory]);

    if (existing.length > 0) {
      const now = await readVersions(existing);
      const updates: AnyBulkWriteOperation<CustomerWrite>[] = [];
      existing.forEach((streamId, i) => {
        const at = now[i]!;
        if (at === 0)
          throw new ProjectionWriteError('a customer document collided on insert but could not be read', {
            collection: names.customers,
          });
        const folded = foldCustomer(byStream.get(streamId)!, at);
        learnt.set(streamId, folded?.version ?? at);
        if (folded) updates.push(update(streamId, folded));
      });
      await inSlices(updates, async (slice) => {
        await customers.bulkWrite(slice, { ordered: false });
      });
    }
    versions?.set(names.customers, learnt, generation);
  } catch (err) {
    versions?.forget(names.customers, byStream.keys());
    throw err;
  }
}
