import type { Db, MongoServerError } from 'mongodb';
import type { CustomerEvent } from '@crs/contracts';
import type { CustomerProjectionName, StoreDialect } from '@crs/store';

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
      return event.data as unknown as Record<string, unknown>;
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
      };
      break;
    case 'CustomerStatusChanged':
      set = { status: event.data.to, closingDate: event.data.closingDate ?? null };
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

function isDuplicateKey(err: unknown): boolean {
  return (err as MongoServerError)?.code === 11000;
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

function isDuplicateKeyOnly(err: unknown): boolean {
  if (isDuplicateKey(err)) return true;
  const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list.length > 0 && list.every((w) => (w as { code?: number }).code === 11000);
}

/** Whether two `$set` paths touch the same subtree in different ways (`a` and `a.b`), which one `$set` cannot hold. */
function pathsConflict(a: string, b: string): boolean {
  return a !== b && (a.startsWith(`${b}.`) || b.startsWith(`${a}.`));
}

/**
 * The live executor, for a chunk of events (the projector's consumer hands it what one fetch brought,
 * in partition order). Every write is idempotent: the customer document changes only if its version is
 * older than the event's (an upsert colliding on _id means "already applied"), history documents are
 * keyed by event id, so a failed chunk is simply retried. Only operations FerretDB v1 supports.
 *
 * Per customer: one read of its version and one update for the run of newer events (split only where
 * two `$set` paths conflict); one insertMany per history collection. On FerretDB v1 every write costs
 * tens of milliseconds whatever it carries, so this, not a write per event, keeps up with imports.
 *
 * On MongoDB the version guard is also part of each update's filter (atomic, indexed). On FerretDB v1
 * such a filter makes every update read the whole customers collection (no indexes; only `_id`-only
 * filters are pushed down), so there the update is by `_id` alone after the read: safe with one writer
 * per customer, which Kafka gives (a customer's events are on one partition, consumed by one projector
 * instance); only a projector that lost its partition and still writes (a zombie after a session
 * timeout) could interleave with the new owner, and a replay repairs that (docs/decisions/0008).
 */
export async function applyCustomerEvents(
  db: Db,
  names: CollectionNames,
  events: readonly CustomerEvent[],
  dialect: StoreDialect = 'mongodb',
): Promise<void> {
  const byStream = new Map<string, { event: CustomerEvent; effect: ProjectionEffect }[]>();
  const inserts = new Map<CustomerProjectionName, Map<string, Doc>>();
  for (const event of events) {
    const effect = projectCustomerEvent(event);
    const list = byStream.get(event.streamId) ?? [];
    list.push({ event, effect });
    byStream.set(event.streamId, list);
    for (const ins of effect.inserts) {
      const m = inserts.get(ins.projection) ?? new Map<string, Doc>();
      if (!m.has(ins.doc._id)) m.set(ins.doc._id, ins.doc);
      inserts.set(ins.projection, m);
    }
  }
  const customers = db.collection<{ _id: string; version?: number }>(names.customers);
  for (const [streamId, list] of byStream) {
    list.sort((x, y) => x.event.streamVersion - y.event.streamVersion);
    const current = await customers.findOne({ _id: streamId }, { projection: { version: 1 } });
    let exists = current !== null;
    let version = current?.version ?? 0;
    const groups: { firstVersion: number; set: Record<string, unknown>; createdAt?: string }[] = [];
    for (const { event, effect } of list) {
      if (exists ? event.streamVersion <= version : !effect.customer.upsert) continue;
      const createdAt = exists ? undefined : event.occurredAt;
      exists = true;
      version = event.streamVersion;
      const group = groups[groups.length - 1];
      const keys = Object.keys(effect.customer.set);
      if (group && !keys.some((k) => Object.keys(group.set).some((g) => pathsConflict(k, g)))) {
        Object.assign(group.set, effect.customer.set);
      } else {
        groups.push({
          firstVersion: event.streamVersion,
          set: { ...effect.customer.set },
          ...(createdAt ? { createdAt } : {}),
        });
      }
    }
    for (const g of groups) {
      const update = { $set: g.set, ...(g.createdAt ? { $setOnInsert: { createdAt: g.createdAt } } : {}) };
      const filter =
        dialect === 'ferretdb' ? { _id: streamId } : { _id: streamId, version: { $lt: g.firstVersion } };
      try {
        await customers.updateOne(filter, update, { upsert: g.createdAt !== undefined });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
  }
  for (const [projection, docs] of inserts) {
    try {
      await db
        .collection<Doc>(names[projection])
        .insertMany([...docs.values()] as never[], { ordered: false });
    } catch (err) {
      if (!isDuplicateKeyOnly(err)) throw err;
    }
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
 * The replay executor: folds effects in memory with the same rules (version guard, upsert, insert
 * once), then writes each collection in bulk. Thousands of times fewer round trips than replaying
 * event by event against the store.
 */
export class InMemoryProjection {
  private readonly customers = new Map<string, Record<string, unknown>>();
  private readonly history = new Map<CustomerProjectionName, Map<string, Doc>>();
  events = 0;

  apply(event: CustomerEvent): void {
    this.events++;
    const effect = projectCustomerEvent(event);
    const current = this.customers.get(event.streamId);
    if (current ? (current.version as number) < event.streamVersion : effect.customer.upsert) {
      const doc = current ?? { _id: event.streamId, createdAt: event.occurredAt };
      for (const [k, v] of Object.entries(structuredClone(effect.customer.set))) setPath(doc, k, v);
      this.customers.set(event.streamId, doc);
    }
    for (const ins of effect.inserts) {
      const m = this.history.get(ins.projection) ?? new Map<string, Doc>();
      if (!m.has(ins.doc._id)) m.set(ins.doc._id, structuredClone(ins.doc));
      this.history.set(ins.projection, m);
    }
  }

  async writeTo(db: Db, names: CollectionNames, chunk = 500): Promise<void> {
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
