import { MongoClient, type Db } from 'mongodb';
import type { CustomerEvent } from '@crs/contracts';
import {
  CustomerProjectionNames,
  ensureProjectionIndexes,
  groupCommunicationEvents,
  projectionContents,
  type ProjectedCommunicationEvent,
} from '@crs/store';
import { projectCustomerEvent, type CollectionNames } from './customer-projection';
import {
  MAX_BULK_OPERATIONS,
  MAX_CHUNK_EVENTS,
  applyCustomerEvent,
  applyCustomerEvents,
} from './apply-customer-events';
import { InMemoryProjection } from './in-memory-projection';
import { StreamVersions } from './stream-versions';

/**
 * Against the real MongoDB-compatible store (FerretDB locally): every event type applied twice, and a
 * whole history applied twice, leave exactly what applying it once leaves.
 */
const NOW = '2026-01-01T00:00:00.000Z';

let seq = 0;
function ev<T extends CustomerEvent['type']>(
  type: T,
  version: number,
  data: Extract<CustomerEvent, { type: T }>['data'],
  extId = 'C-1',
): CustomerEvent {
  return {
    eventId: `e-${++seq}`,
    type,
    streamId: `DEMO:${extId}`,
    streamVersion: version,
    occurredAt: NOW,
    correlationId: `COMM-${version}`,
    causationId: `cmd-${version}`,
    businessUnit: 'DEMO',
    customerExtId: extId,
    data,
  } as CustomerEvent;
}

const customer = {
  communicationNumber: 'COMM-1',
  businessUnit: 'DEMO',
  customerExtId: 'C-1',
  entityType: 'INDIVIDUAL',
  customerStatus: 'ACTIVE',
  firstName: 'A',
  lastName: 'B',
};
const hit = { list: 'SANCTIONS' as const, source: 'OFAC_SDN', entryId: '1', matchedName: 'X', score: 0.9 };

function history(): CustomerEvent[] {
  return [
    ev('CustomerCommandRejected', 1, {
      commandType: 'ImportCustomer',
      errorCode: 'C004',
      errorDescription: 'missing',
    }),
    ev('CustomerCreated', 2, {
      customer: customer as never,
      sourceOfRiskLevel: 'EVALUATE',
      channel: 'SINGLE',
      simplified: false,
    }),
    ev('CustomerStatusChanged', 3, { from: null, to: 'ACTIVE' }),
    ev('InternalListPurposeRecorded', 4, { listPurpose: 'BLACK' }),
    ev('RiskEvaluationRequested', 5, { requestId: 'r1', reason: 'IMPORT_EVALUATE' }),
    ev('ScreeningRequested', 6, { requestId: 's1', lists: ['SANCTIONS'] }),
    ev('ScreeningCompleted', 7, {
      requestId: 's1',
      list: 'SANCTIONS',
      matched: true,
      hits: [hit],
      changed: true,
    }),
    ev('RiskAssessed', 8, {
      requestId: 'r1',
      assessment: { source: 'EVALUATE', level: 'HIGH', score: 71 },
      previousLevel: null,
    }),
    ev('RiskOverrideSet', 9, { level: 'EXTREME', reason: 'manual', setBy: 'officer' }),
    ev('RiskAssessed', 10, { assessment: { source: 'OVERRIDE', level: 'EXTREME' }, previousLevel: 'HIGH' }),
    ev('CustomerUpdated', 11, {
      customer: { ...customer, customerStatus: 'SUSPENDED' } as never,
      sourceOfRiskLevel: 'IMPORT',
      channel: 'SINGLE',
      simplified: false,
    }),
    ev('CustomerStatusChanged', 12, { from: 'ACTIVE', to: 'SUSPENDED' }),
  ];
}

/** One scratch database for the file; every test writes collections of its own (`namesFor`, `fresh`). */
let client: MongoClient;
let db: Db;
beforeAll(async () => {
  client = await new MongoClient(process.env.MONGODB_URI!).connect();
  db = client.db(`crs_int_projection_${process.pid}`);
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

/** The four read models' collections under one suffix. */
const namesFor = (suffix: string): CollectionNames =>
  Object.fromEntries(CustomerProjectionNames.map((n) => [n, `${n}_${suffix}`])) as CollectionNames;
let run = 0;
/** Collections no other test of the file uses. */
const fresh = () => namesFor(`run${++run}`);
/** What the read models hold (`projectionContents`: comparable across chunkings). */
const snapshotOf = (names: CollectionNames) => projectionContents(db, names);

describe('customer projection (real store)', () => {
  it('every event applied twice changes nothing the first application did not', async () => {
    const once = namesFor('once');
    const twice = namesFor('twice');
    await ensureProjectionIndexes(db, once);
    await ensureProjectionIndexes(db, twice);
    for (const e of history()) {
      await applyCustomerEvent(db, once, e);
      await applyCustomerEvent(db, twice, e);
      await applyCustomerEvent(db, twice, e);
      expect(await snapshotOf(twice)).toEqual(await snapshotOf(once));
    }
    const c = await db.collection(once.customers).findOne({ _id: 'DEMO:C-1' as never });
    expect(c).toMatchObject({
      version: 12,
      status: 'SUSPENDED',
      riskLevel: 'EXTREME',
      listPurpose: 'BLACK',
      screening: { SANCTIONS: { matched: true, hitCount: 1 } },
    });
    expect(await db.collection(once.assessments).countDocuments()).toBe(2);
    expect(await db.collection(once.screenings).countDocuments()).toBe(1);
    expect(await db.collection(once.communication_events).countDocuments()).toBe(12);
  });

  it('a whole history replayed over itself (redelivery after a crash) leaves the same state', async () => {
    const n = namesFor('replayed');
    await ensureProjectionIndexes(db, n);
    const events = history();
    for (const e of events) await applyCustomerEvent(db, n, e);
    const first = await snapshotOf(n);
    for (const e of events) await applyCustomerEvent(db, n, e);
    expect(await snapshotOf(n)).toEqual(first);
  });

  it('a rejection alone never creates a customer document', async () => {
    const n = namesFor('rejected');
    await applyCustomerEvent(
      db,
      n,
      ev(
        'CustomerCommandRejected',
        1,
        { commandType: 'ImportCustomer', errorCode: 'C004', errorDescription: 'x' },
        'C-9',
      ),
    );
    expect(await db.collection(n.customers).countDocuments()).toBe(0);
    expect(await db.collection(n.communication_events).countDocuments()).toBe(1);
  });
});

describe('in-memory replay executor', () => {
  it('writes exactly what the live executor writes, also when events are delivered twice', async () => {
    const live = namesFor('live');
    const bulk = namesFor('bulk');
    const events = [
      ...history(),
      ...history().map(
        (e) =>
          ({ ...e, streamId: 'DEMO:C-2', customerExtId: 'C-2', eventId: `${e.eventId}-2` }) as CustomerEvent,
      ),
    ];
    const memory = new InMemoryProjection();
    for (const e of events) {
      await applyCustomerEvent(db, live, e);
      memory.apply(e);
      memory.apply(e);
    }
    await memory.writeTo(db, bulk);
    expect(await projectionContents(db, bulk)).toEqual(await projectionContents(db, live));
    expect(await db.collection(bulk.customers).countDocuments()).toBe(2);
    // The memory executor folds each communication's events into one document (decision 0050).
    expect(await db.collection(bulk.communication_events).countDocuments()).toBe(12);
    expect(await db.collection(live.communication_events).countDocuments()).toBe(24);
  });
});

describe('chunked live executor', () => {
  it('chunks of any size, interleaved customers and redelivered chunks leave what one-by-one leaves', async () => {
    const c2 = history().map(
      (e) =>
        ({ ...e, streamId: 'DEMO:C-2', customerExtId: 'C-2', eventId: `${e.eventId}-2` }) as CustomerEvent,
    );
    const c1 = history();
    // Partition order per customer, the two customers interleaved as on one partition.
    const events = c1.flatMap((e, i) => [e, c2[i]!]);
    const single = namesFor('single');
    for (const e of events) await applyCustomerEvent(db, single, e);
    const expected = await snapshotOf(single);

    for (const size of [1, 3, 7, events.length]) {
      const chunked = namesFor(`chunk${size}`);
      await ensureProjectionIndexes(db, chunked);
      for (let i = 0; i < events.length; i += size)
        await applyCustomerEvents(db, chunked, events.slice(i, i + size));
      expect(await snapshotOf(chunked)).toEqual(expected);
      // A chunk delivered again after a crash (its offsets were not committed), and an older one.
      await applyCustomerEvents(db, chunked, events.slice(4, 15));
      await applyCustomerEvents(db, chunked, events);
      expect(await snapshotOf(chunked)).toEqual(expected);
    }
    expect(expected.customers).toHaveLength(2);
    expect(expected.customers![0]).toMatchObject({ version: 12, status: 'SUSPENDED', riskLevel: 'EXTREME' });
  });
});

// Decision 0012: one write per customer and chunk (an insert when it has no document yet), history in
// unordered inserts, versions remembered between chunks. Against one-event-at-a-time as the reference.
describe.each([false, true])('one write per customer and chunk (versions remembered: %s)', (remember) => {
  /** The reference: every event alone, in order. */
  const oneByOne = async (events: CustomerEvent[]) => {
    const names = fresh();
    for (const e of events) await applyCustomerEvent(db, names, e);
    return snapshotOf(names);
  };
  const of = (extId: string) =>
    history().map(
      (e) =>
        ({
          ...e,
          streamId: `DEMO:${extId}`,
          customerExtId: extId,
          eventId: `${e.eventId}-${extId}`,
        }) as CustomerEvent,
    );
  const versionsFor = () => (remember ? new StreamVersions() : undefined);

  it('all events of one customer in one chunk write the same final documents as one at a time', async () => {
    const events = of('F1');
    const names = fresh();
    await applyCustomerEvents(db, names, events, versionsFor());
    expect(await snapshotOf(names)).toEqual(await oneByOne(events));
    const doc = await db.collection(names.customers).findOne({ _id: 'DEMO:F1' as never });
    expect(doc).toMatchObject({ version: 12, status: 'SUSPENDED', riskLevel: 'EXTREME', createdAt: NOW });
  });

  it('a chunk applied twice, and an older chunk after a newer one, leave what once leaves', async () => {
    const events = [...of('T1'), ...of('T2')];
    const names = fresh();
    const versions = versionsFor();
    await applyCustomerEvents(db, names, events, versions);
    await applyCustomerEvents(db, names, events, versions);
    // A fresh instance (nothing remembered) gets an older chunk again: versions never go back.
    await applyCustomerEvents(db, names, events.slice(2, 9), versionsFor());
    await applyCustomerEvents(db, names, events.slice(2, 9), versions);
    expect(await snapshotOf(names)).toEqual(await oneByOne(events));
  });

  it('a chunk mixing new and existing customers, and a stream with no document yet', async () => {
    const existing = of('M1');
    const added = of('M2');
    const rejectedOnly = of('M3').slice(0, 1);
    const names = fresh();
    const versions = versionsFor();
    await applyCustomerEvents(db, names, existing.slice(0, 5), versions);
    // Interleaved as on one partition: the rest of M1, all of M2, M3's lone rejection.
    const chunk = [...existing.slice(5), ...added].sort((a, b) => a.streamVersion - b.streamVersion);
    await applyCustomerEvents(db, names, [...rejectedOnly, ...chunk], versions);
    expect(await snapshotOf(names)).toEqual(await oneByOne([...existing, ...added, ...rejectedOnly]));
    expect(await db.collection(names.customers).countDocuments()).toBe(2);
  });

  // Decision 0064: a projector that lost its partitions (a zombie after a session timeout) still holds the
  // versions it wrote and may finish a chunk after the new owner moved the documents on. The version guard
  // in each update's filter refuses its older writes, on FerretDB as on MongoDB.
  it('a zombie writing older events after the new owner leaves the newer document', async () => {
    const events = of('Z1');
    const names = fresh();
    const zombie = new StreamVersions();
    await applyCustomerEvents(db, names, events.slice(0, 5), zombie);
    // The partition moved: the new owner remembers nothing, reads version 5 and writes the rest.
    await applyCustomerEvents(db, names, events.slice(5), versionsFor());
    // The zombie's next chunk: it still remembers version 5 and writes 6-8 as an update.
    await applyCustomerEvents(db, names, events.slice(5, 8), zombie);
    expect(await snapshotOf(names)).toEqual(await oneByOne(events));
    const doc = await db.collection(names.customers).findOne({ _id: 'DEMO:Z1' as never });
    expect(doc).toMatchObject({ version: 12, status: 'SUSPENDED', riskLevel: 'EXTREME' });
  });

  it('history documents already there are skipped, the customer document is still written', async () => {
    const events = of('H1');
    const names = fresh();
    // A previous attempt wrote some history, then failed before the customer document.
    const written = groupCommunicationEvents(
      events
        .filter((_, i) => i % 2 === 0)
        .flatMap((e) => projectCustomerEvent(e).inserts)
        .filter((h) => h.projection === 'communication_events')
        .map((h) => h.doc as ProjectedCommunicationEvent),
    );
    await db.collection(names.communication_events).insertMany(written as never[]);
    const assessments = (await oneByOne(events)).assessments!;
    await db.collection(names.assessments).insertOne(assessments[0] as never);
    await applyCustomerEvents(db, names, events, versionsFor());
    expect(await snapshotOf(names)).toEqual(await oneByOne(events));
  });

  it('a batch communication in one chunk is one communication_events document; cut differently when redelivered, each event still reads once', async () => {
    const batch = Array.from({ length: 40 }, (_, i) => ({
      ...ev(
        'CustomerCreated',
        1,
        { customer: customer as never, sourceOfRiskLevel: 'IMPORT', channel: 'BATCH', simplified: false },
        `B${i}`,
      ),
      correlationId: 'BATCH-1',
    })) as CustomerEvent[];
    const names = fresh();
    await applyCustomerEvents(db, names, batch, versionsFor());
    expect(await db.collection(names.communication_events).countDocuments()).toBe(1);
    // After a rebalance the same events come again in other chunks: more documents, the same events.
    await applyCustomerEvents(db, names, batch.slice(10, 30), versionsFor());
    await applyCustomerEvents(db, names, batch, versionsFor());
    expect(await db.collection(names.communication_events).countDocuments()).toBe(2);
    const read = (await projectionContents(db, names)).communication_events;
    expect(read.map((e) => e.eventId).sort()).toEqual(batch.map((e) => e.eventId).sort());
    expect(await snapshotOf(names)).toEqual(await oneByOne(batch));
  });

  it('a redelivered chunk that starts the stream, after a longer one wrote the document, changes nothing', async () => {
    const events = of('R1');
    const names = fresh();
    await applyCustomerEvents(db, names, events.slice(0, 8), versionsFor());
    const before = await snapshotOf(names);
    // The first chunk of the stream, shorter this time: its insert collides; the document is newer.
    await applyCustomerEvents(db, names, events.slice(0, 3), versionsFor());
    expect(await snapshotOf(names)).toEqual(before);
    const versions = versionsFor();
    await applyCustomerEvents(db, names, events.slice(0, 10), versions);
    await applyCustomerEvents(db, names, events.slice(10), versions);
    expect(await snapshotOf(names)).toEqual(await oneByOne(events));
  });
});

// The live projector hands up to MAX_CHUNK_EVENTS events at once (decision 0051): more than one bulk write of
// customers, history and version reads.
describe('a chunk larger than one bulk write', () => {
  it.each([false, true])(
    'writes every customer and event once, also redelivered (versions remembered: %s)',
    async (remember) => {
      const versionsFor = () => (remember ? new StreamVersions() : undefined);
      const n = MAX_BULK_OPERATIONS + 100;
      const created = Array.from({ length: n }, (_, i) => [
        ev(
          'CustomerCreated',
          1,
          { customer: customer as never, sourceOfRiskLevel: 'IMPORT', channel: 'BATCH', simplified: false },
          `L${i}`,
        ),
        ev(
          'RiskAssessed',
          2,
          { assessment: { source: 'IMPORT', level: 'HIGH' }, previousLevel: null },
          `L${i}`,
        ),
      ]).flat();
      const changed = Array.from({ length: n }, (_, i) =>
        ev('CustomerStatusChanged', 3, { from: 'ACTIVE', to: 'SUSPENDED' }, `L${i}`),
      );
      expect(created.length + changed.length).toBeLessThanOrEqual(MAX_CHUNK_EVENTS);
      const names = fresh();
      const versions = versionsFor();
      await applyCustomerEvents(db, names, created, versions);
      // A second chunk of existing customers: versions remembered, or read by _id list (two finds).
      await applyCustomerEvents(db, names, changed, versions);
      const read = await projectionContents(db, names);
      expect(read.customers).toHaveLength(n);
      for (const c of read.customers)
        expect(c).toMatchObject({ version: 3, status: 'SUSPENDED', riskLevel: 'HIGH' });
      expect(read.assessments).toHaveLength(n);
      expect(read.communication_events).toHaveLength(3 * n);
      // Redelivered whole after a crash, to an instance that remembers nothing: nothing doubles.
      await applyCustomerEvents(db, names, [...created, ...changed], versionsFor());
      expect(await projectionContents(db, names)).toEqual(read);
    },
  );
});
