import type { AnyBulkWriteOperation, Db } from 'mongodb';
import { CodedError } from '@crs/runtime';
import type { CustomerEvent } from '@crs/contracts';
import { versionGuardedFilter, type CustomerProjectionName, type StoreDialect } from '@crs/store';
import type { StreamVersions } from './stream-versions';
import { isDuplicateKeyOnly, writeErrorsOf } from './write-errors';

/** Physical collection of each read model the projector owns (operations and alerts are the archive's). */
export type CollectionNames = Record<CustomerProjectionName, string>;
type Doc = { _id: string } & Record<string, unknown>;

/**
 * What one event does to the read models, as data: fields to set on the customer document (only if
 * the document has not seen this stream version; `upsert` creates it) and history documents keyed by
 * event id. Two executors apply it: MongoDB for the live projector, memory for a fast replay; the
 * replay test proves they agree.
 */
export interface ProjectionEffect {
  customer: { set: Record<string, unknown>; upsert: boolean };
  inserts: { projection: Exclude<CustomerProjectionName, 'customers'>; doc: Doc }[];
}

/** What the pull endpoint shows of an event: the customer record itself stays in the customer document. */
function eventSummary(event: CustomerEvent): Record<string, unknown> {
  switch (event.type) {
    case 'CustomerCreated':
    case 'CustomerUpdated':
      return {
        channel: event.data.channel,
        sourceOfRiskLevel: event.data.sourceOfRiskLevel,
        simplified: event.data.simplified === true,
        customerStatus: event.data.customer.customerStatus ?? null,
      };
    default:
      return event.data;
  }
}

/** Pure: the effect of one customer event on the read models. */
export function projectCustomerEvent(event: CustomerEvent): ProjectionEffect {
  const base = { businessUnit: event.businessUnit, customerExtId: event.customerExtId };
  const inserts: ProjectionEffect['inserts'] = [];
  let set: Record<string, unknown> = {};
  let upsert = false;
  switch (event.type) {
    case 'CustomerCreated':
    case 'CustomerUpdated':
      upsert = true;
      set = {
        ...base,
        data: event.data.customer,
        simplified: event.data.simplified === true,
        sourceOfRiskLevel: event.data.sourceOfRiskLevel,
        entityType: event.data.customer.entityType,
        riskManagementCategory: event.data.customer.riskManagementCategory ?? null,
        status: event.data.customer.customerStatus ?? null,
        lastCommunicationNumber: event.correlationId,
        // A record imported after an erasure is a new relationship's data, under a new key.
        personalDataErased: false,
      };
      break;
    case 'CustomerStatusChanged':
      set = {
        status: event.data.to,
        closingDate: event.data.closingDate ?? null,
        statusChangedAt: event.occurredAt,
      };
      break;
    case 'PersonalDataErased':
      // docs/privacy.md: the record stays as it was (ciphertext of an erased key); readers show it erased.
      set = {
        personalDataErased: true,
        erasure: {
          erasedAt: event.occurredAt,
          erasedBy: event.data.erasedBy,
          source: event.data.source,
          override: event.data.override,
          keyId: event.data.keyId ?? null,
        },
      };
      break;
    case 'InternalListPurposeRecorded':
      set = { listPurpose: event.data.listPurpose };
      break;
    case 'RiskAssessed': {
      const assessment = {
        ...event.data.assessment,
        assessedAt: event.occurredAt,
        eventId: event.eventId,
        communicationNumber: event.correlationId,
      };
      inserts.push({
        projection: 'assessments',
        doc: {
          _id: event.eventId,
          ...base,
          streamId: event.streamId,
          streamVersion: event.streamVersion,
          ...assessment,
        },
      });
      set = { riskLevel: event.data.assessment.level, latestAssessment: assessment };
      break;
    }
    case 'RiskOverrideSet':
      set = { override: { ...event.data, setAt: event.occurredAt } };
      break;
    case 'ScreeningCompleted': {
      const d = event.data;
      inserts.push({
        projection: 'screenings',
        doc: {
          _id: event.eventId,
          ...base,
          streamId: event.streamId,
          streamVersion: event.streamVersion,
          communicationNumber: event.correlationId,
          requestId: d.requestId,
          list: d.list,
          matched: d.matched,
          hits: d.hits,
          snapshotVersion: d.snapshotVersion ?? null,
          screenedAt: event.occurredAt,
        },
      });
      set = {
        [`screening.${d.list}`]: {
          matched: d.matched,
          hitCount: d.hits.length,
          screenedAt: event.occurredAt,
        },
      };
      break;
    }
    case 'ScreeningHitDecided': {
      // The reviewer's reason stays in the event log (and the pull endpoint); the document shows the decision.
      const { list, source, entryId, subject, decision, decidedBy } = event.data;
      set = {
        lastScreeningDecision: {
          list,
          source,
          entryId,
          subject,
          decision,
          decidedBy,
          decidedAt: event.occurredAt,
        },
      };
      break;
    }
    case 'RiskEvaluationRequested':
    case 'ScreeningRequested':
    case 'CustomerCommandRejected':
      break;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
  inserts.push({
    projection: 'communication_events',
    doc: {
      _id: event.eventId,
      ...base,
      communicationNumber: event.correlationId,
      type: event.type,
      occurredAt: event.occurredAt,
      streamVersion: event.streamVersion,
      data: eventSummary(event),
    },
  });
  return {
    customer: {
      set: { ...set, version: event.streamVersion, lastEventId: event.eventId, updatedAt: event.occurredAt },
      upsert,
    },
    inserts,
  };
}

type HistoryName = Exclude<CustomerProjectionName, 'customers'>;
type CustomerDoc = { _id: string; version?: number } & Record<string, unknown>;

/** At most this many operations per `bulkWrite` / `insertMany` (FerretDB runs one command as one unit). */
export const MAX_BULK_OPERATIONS = 500;

/** A customer write that cannot go on; the consumer retries the chunk whole. */
export class ProjectionWriteError extends CodedError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('PROJECTION_WRITE_FAILED', message, details);
  }
}

/** `$set` semantics for the dotted paths the effects use (`screening.SANCTIONS`). */
function setPath(doc: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = doc;
  for (const p of parts.slice(0, -1)) {
    if (typeof at[p] !== 'object' || at[p] === null) at[p] = {};
    at = at[p] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]!] = value;
}

/**
 * Adds one effect's `$set` to a `$set` accumulated from earlier effects, so that applying the result
 * once equals applying both in order. Paths one `$set` cannot hold together (`a` and `a.b`) are folded:
 * a later `a` replaces an earlier `a.b`; a later `a.b` is written into an earlier `a`.
 */
export function mergeSet(into: Record<string, unknown>, set: Record<string, unknown>): void {
  for (const [path, raw] of Object.entries(set)) {
    const value = structuredClone(raw);
    if (path in into) {
      into[path] = value;
      continue;
    }
    const parent = Object.keys(into).find((p) => path.startsWith(`${p}.`));
    if (parent !== undefined) {
      if (typeof into[parent] !== 'object' || into[parent] === null) into[parent] = {};
      setPath(into[parent] as Record<string, unknown>, path.slice(parent.length + 1), value);
      continue;
    }
    for (const child of Object.keys(into)) if (child.startsWith(`${path}.`)) delete into[child];
    into[path] = value;
  }
}

/** A customer document write folded from several events. */
export interface FoldedCustomer {
  /** One `$set` holding every applied effect. */
  set: Record<string, unknown>;
  /** The stream version of the document after the write. */
  version: number;
  /** Set when the fold starts from no document (its first upserting event creates it). */
  createdAt?: string;
}

type Applied = { event: CustomerEvent; effect: ProjectionEffect };

/**
 * The projection is a fold: the effects of a stream's events (in version order) that a document at
 * version `stored` (0: no document) has not seen, as one write. The rules of one event at a time hold:
 * an event applies only if newer than the document, and only an upserting event creates it.
 */
export function foldCustomer(applied: readonly Applied[], stored: number): FoldedCustomer | undefined {
  let exists = stored > 0;
  let version = stored;
  let createdAt: string | undefined;
  const set: Record<string, unknown> = {};
  for (const { event, effect } of applied) {
    if (exists ? event.streamVersion <= version : !effect.customer.upsert) continue;
    if (!exists) createdAt = event.occurredAt;
    exists = true;
    version = event.streamVersion;
    mergeSet(set, effect.customer.set);
  }
  if (version === stored) return undefined;
  return { set, version, ...(createdAt !== undefined ? { createdAt } : {}) };
}

/** The document an upsert of the folded `$set` with `$setOnInsert: {createdAt}` creates. */
function newCustomerDocument(streamId: string, folded: FoldedCustomer): CustomerDoc {
  const doc: CustomerDoc = { _id: streamId, createdAt: folded.createdAt };
  for (const [path, value] of Object.entries(folded.set)) setPath(doc, path, value);
  return doc;
}

/** The live executor for one event: a chunk of one (`applyCustomerEvents`). */
export async function applyCustomerEvent(
  db: Db,
  names: CollectionNames,
  event: CustomerEvent,
  dialect: StoreDialect = 'mongodb',
): Promise<void> {
  await applyCustomerEvents(db, names, [event], dialect);
}

/** Like Promise.all, but settles only after every write has ended, so a retry never overlaps them. */
async function settleAll(work: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(work);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function inSlices<T>(items: readonly T[], write: (slice: T[]) => Promise<void>): Promise<void> {
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += MAX_BULK_OPERATIONS)
    slices.push(items.slice(i, i + MAX_BULK_OPERATIONS));
  await settleAll(slices.map(write));
}

/**
 * The live executor, for a chunk of events (the projector's consumer hands it up to 500 events of one
 * fetch, in partition order). Whatever the chunk holds:
 *
 * - each customer's events are folded in memory into ONE write of its document (`foldCustomer`): an
 *   insert of the whole document when it has none yet (an insert costs FerretDB a fraction of an
 *   update), an update by `_id` otherwise; all in one unordered `bulkWrite`;
 * - history documents (assessments, screenings, communication_events), keyed by event id, go in one
 *   unordered `insertMany` per collection, where a duplicate key means "already applied";
 * - the customers and the history collections are written at the same time.
 *
 * The version a document holds comes from `versions` (what this instance wrote or read; dropped on
 * every rebalance), else is taken as 0 when the chunk holds the stream's first event (an insert that
 * then collides on `_id` means the document exists: it is read and updated instead), else is read by
 * `findOne({_id})`, concurrently (`$in` is not pushed down on FerretDB v1: it reads the collection).
 * Every write is idempotent, so a failed chunk is retried whole: the customer document changes only
 * with events newer than its version, the history only gains documents it lacks.
 *
 * On MongoDB the version guard is also part of each update's filter (atomic, indexed). On FerretDB v1
 * such a filter makes every update read the whole customers collection (200 guarded updates took 5.7 s
 * at 5,000 documents, 61 ms by `_id`), so there the update is by `_id` alone once the version is known:
 * safe with one writer per customer, which Kafka gives (a customer's events are on one partition,
 * consumed by one projector instance); only a projector that lost its partition and still writes (a
 * zombie after a session timeout) could interleave with the new owner, and a replay repairs that
 * (docs/decisions/0008, 0012).
 */
export async function applyCustomerEvents(
  db: Db,
  names: CollectionNames,
  events: readonly CustomerEvent[],
  dialect: StoreDialect = 'mongodb',
  versions?: StreamVersions,
): Promise<void> {
  const generation = versions?.generation() ?? 0;
  const byStream = new Map<string, Applied[]>();
  const history = new Map<HistoryName, Map<string, Doc>>();
  for (const event of events) {
    const effect = projectCustomerEvent(event);
    const list = byStream.get(event.streamId) ?? [];
    list.push({ event, effect });
    byStream.set(event.streamId, list);
    for (const ins of effect.inserts) {
      const m = history.get(ins.projection) ?? new Map<string, Doc>();
      if (!m.has(ins.doc._id)) m.set(ins.doc._id, ins.doc);
      history.set(ins.projection, m);
    }
  }
  const customers = db.collection<CustomerDoc>(names.customers);
  const readVersion = async (streamId: string): Promise<number> =>
    (await customers.findOne({ _id: streamId }, { projection: { version: 1 } }))?.version ?? 0;
  const update = (streamId: string, folded: FoldedCustomer): AnyBulkWriteOperation<CustomerDoc> => ({
    updateOne: {
      filter: versionGuardedFilter(dialect, streamId, folded.version),
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
    const read = await Promise.all(toRead.map(readVersion));
    toRead.forEach((streamId, i) => stored.set(streamId, read[i]!));

    const writes: { op: AnyBulkWriteOperation<CustomerDoc>; streamId: string }[] = [];
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
        if (errors.length === 0 || errors.some((w) => w.code !== 11000 || w.index === undefined)) throw err;
        // An insert collided: the document exists (redelivered events, or a guess); update it instead.
        for (const w of errors) existing.push(slice[w.index!]!.streamId);
      }
    });
    const writeHistory = [...history].map(async ([projection, docs]) =>
      inSlices([...docs.values()], async (slice) => {
        try {
          await db.collection<Doc>(names[projection]).insertMany(slice as never[], { ordered: false });
        } catch (err) {
          if (!isDuplicateKeyOnly(err)) throw err;
        }
      }),
    );
    await settleAll([writeCustomers, ...writeHistory]);

    if (existing.length > 0) {
      const now = await Promise.all(existing.map(readVersion));
      const updates: AnyBulkWriteOperation<CustomerDoc>[] = [];
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

/**
 * The replay executor: folds each customer's effects in memory with the same rules as the live one
 * (version guard, upsert, insert once). History documents are kept for `writeTo`, or, with
 * `keepHistory: false`, only returned by `apply` for the caller to stream to the store while it reads
 * (a replay of millions of events does not hold them all). Thousands of times fewer round trips than
 * replaying event by event against the store.
 */
export class InMemoryProjection {
  private readonly customers = new Map<string, Record<string, unknown>>();
  private readonly history = new Map<CustomerProjectionName, Map<string, Doc>>();
  private readonly keepHistory: boolean;
  events = 0;

  constructor(opts: { keepHistory?: boolean } = {}) {
    this.keepHistory = opts.keepHistory ?? true;
  }

  /** Applies one event; returns its history documents (deduplicated by id only when they are kept). */
  apply(event: CustomerEvent): ProjectionEffect['inserts'] {
    this.events++;
    const effect = projectCustomerEvent(event);
    const current = this.customers.get(event.streamId);
    if (current ? (current.version as number) < event.streamVersion : effect.customer.upsert) {
      const doc = current ?? { _id: event.streamId, createdAt: event.occurredAt };
      for (const [k, v] of Object.entries(structuredClone(effect.customer.set))) setPath(doc, k, v);
      this.customers.set(event.streamId, doc);
    }
    if (!this.keepHistory) return effect.inserts;
    for (const ins of effect.inserts) {
      const m = this.history.get(ins.projection) ?? new Map<string, Doc>();
      if (!m.has(ins.doc._id)) m.set(ins.doc._id, structuredClone(ins.doc));
      this.history.set(ins.projection, m);
    }
    return effect.inserts;
  }

  /** The folded customer documents. */
  customerDocuments(): IterableIterator<Record<string, unknown>> {
    return this.customers.values();
  }

  async writeTo(db: Db, names: CollectionNames, chunk = MAX_BULK_OPERATIONS): Promise<void> {
    const write = async (collection: string, docs: Record<string, unknown>[]) => {
      for (let i = 0; i < docs.length; i += chunk) {
        await db
          .collection<Doc>(collection)
          .insertMany(docs.slice(i, i + chunk) as never[], { ordered: false });
      }
    };
    await write(names.customers, [...this.customers.values()]);
    for (const [projection, docs] of this.history) await write(names[projection], [...docs.values()]);
  }
}
