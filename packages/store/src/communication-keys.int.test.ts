import { randomUUID } from 'node:crypto';
import { MongoClient, ObjectId, type Db, type Document } from 'mongodb';
import { communicationEventsOf, groupCommunicationEvents } from './communication-events';
import {
  COMMUNICATION_KEYS_MARKER,
  CommunicationKeyLookup,
  communicationKey,
  indexCommunicationNumbers,
  markCommunicationKeys,
} from './communication-keys';
import type { ProjectedCommunicationEvent } from './read-models';
import { prepareProjections } from './collections';

/**
 * Decision 0065: every `communication_events` document's `_id` starts with its communication's key, and
 * the pull endpoint reads a communication by that prefix. MongoDB serves an anchored literal prefix of
 * `_id` from the `_id` index; FerretDB v1 does with our patch 0007 (a range on the index), and read the
 * whole collection before (2.9-3.2 s per call at 104,160 documents). Against the real store.
 */
describe('communication_events read by their communication key', () => {
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_commkeys_${randomUUID().slice(0, 8)}`);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  const event = (id: string, comm: string, bu = 'BU1'): ProjectedCommunicationEvent => ({
    _id: id,
    businessUnit: bu,
    customerExtId: `C-${id}`,
    communicationNumber: comm,
    type: 'CustomerCreated',
    occurredAt: '2026-03-01T10:00:00.000Z',
    streamVersion: 1,
    data: { channel: 'BATCH' },
  });

  it('the key is a literal prefix of characters the pushdown accepts, one per communication number', () => {
    const key = communicationKey('COMM-1');
    expect(key).toMatch(/^c~[A-Za-z0-9_-]{22}:$/);
    expect(communicationKey('COMM-1')).toBe(key);
    expect(communicationKey('COMM-2')).not.toBe(key);
    expect(key.startsWith(COMMUNICATION_KEYS_MARKER)).toBe(false);
  });

  it('reads exactly the _ids that start with the key, through the _id index', async () => {
    const key = communicationKey('COMM-1');
    const inside = [
      key,
      `${key}a`,
      `${key}a+3.xyz`,
      `${key}"q`,
      `${key}\\`,
      `${key}<&>`,
      `${key}\u{10FFFF}z`,
      `${key}~`,
    ];
    // Neighbours in byte order and in the index's JSON text order: the key's last character
    // ("':'") moved by one, the key without it, a longer one, other types.
    const outside: unknown[] = [
      `${key.slice(0, -1)};`,
      `${key.slice(0, -1)}9`,
      key.slice(0, -1),
      `x${key}`,
      `${communicationKey('COMM-2')}a`,
      COMMUNICATION_KEYS_MARKER,
      42,
      new ObjectId(),
    ];
    const docs = db.collection('prefixes');
    await docs.insertMany([...inside, ...outside].map((_id, n) => ({ _id, n }) as Document));
    const filter = { _id: { $regex: `^${key}` } };
    const plan = await db.command({ explain: { find: 'prefixes', filter } });
    const text = JSON.stringify(plan);
    if (plan.serverInfo?.ferretdbVersion !== undefined) expect(text).toMatch(/USING INDEX \S+__id_/);
    else expect(text).not.toContain('COLLSCAN');
    const found = await docs.find(filter as Document).toArray();
    expect(found.map((d) => d._id).sort()).toEqual([...inside].sort());
    // A pattern the pushdown does not take is still answered right (by the handler).
    const dotted = await docs.find({ _id: { $regex: `^${key.slice(0, -1)}.` } } as Document).toArray();
    expect(dotted.map((d) => d._id).sort()).toEqual(
      [...inside, `${key.slice(0, -1)};`, `${key.slice(0, -1)}9`].sort(),
    );
  });

  it('a collection is marked keyed only while it is empty, or when a replay builds it', async () => {
    const empty = db.collection('marked_empty');
    expect(await markCommunicationKeys(empty)).toBe(true);
    expect(await markCommunicationKeys(empty)).toBe(true);
    expect(await empty.countDocuments({ _id: COMMUNICATION_KEYS_MARKER } as Document)).toBe(1);

    const legacy = db.collection('marked_legacy');
    await legacy.insertOne({ _id: 'event-1', communicationNumber: 'OLD' } as Document);
    expect(await markCommunicationKeys(legacy)).toBe(false);
    expect(await legacy.countDocuments({ _id: COMMUNICATION_KEYS_MARKER } as Document)).toBe(0);

    const rebuilt = db.collection('marked_fresh');
    await rebuilt.insertOne({ _id: `${communicationKey('X')}e` } as Document);
    expect(await markCommunicationKeys(rebuilt, { fresh: true })).toBe(true);
  });

  it('a keyed collection carries no communication-number index; one from before keeps it (decision 0074)', async () => {
    const keys = async (name: string) => (await db.collection(name).indexes()).map((i) => i.key);
    // Keyed from the start: never indexed by number.
    const keyed = db.collection('index_keyed');
    expect(await markCommunicationKeys(keyed)).toBe(true);
    expect(await indexCommunicationNumbers(keyed)).toBe(true);
    expect(await keys('index_keyed')).toEqual([{ _id: 1 }]);

    // Keyed, and indexed by an earlier release: the index goes at the next start, once (idempotent).
    const upgraded = db.collection('index_upgraded');
    expect(await markCommunicationKeys(upgraded)).toBe(true);
    await upgraded.createIndex({ businessUnit: 1, communicationNumber: 1 });
    await upgraded.createIndex({ communicationNumber: 1 });
    const dropped: string[][] = [];
    const upkeep = { onDropped: (collection: string, index: string) => dropped.push([collection, index]) };
    expect(await indexCommunicationNumbers(upgraded, upkeep)).toBe(true);
    expect(await indexCommunicationNumbers(upgraded, upkeep)).toBe(true);
    // Told once, with the collection and the index (the services log it).
    expect(dropped).toEqual([['index_upgraded', 'businessUnit_1_communicationNumber_1']]);
    expect(await keys('index_upgraded')).toEqual([{ _id: 1 }, { communicationNumber: 1 }]);

    // Written before its keys: read by communication number, so indexed by it (MongoDB's read).
    const legacy = db.collection('index_legacy');
    await legacy.insertOne({ _id: 'event-1', businessUnit: 'BU1', communicationNumber: 'OLD' } as Document);
    expect(await markCommunicationKeys(legacy)).toBe(false);
    expect(await indexCommunicationNumbers(legacy)).toBe(false);
    expect(await indexCommunicationNumbers(legacy)).toBe(false);
    expect(await keys('index_legacy')).toEqual([{ _id: 1 }, { businessUnit: 1, communicationNumber: 1 }]);
  });

  it('the projector prepares its read models: communication_events marked before the indexes (decision 0074)', async () => {
    const keys = async (name: string) =>
      (await db.collection(name).indexes())
        .map((i) => i.key)
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const names = (p: string) => ({
      customers: `${p}_customers`,
      assessments: `${p}_assessments`,
      screenings: `${p}_screenings`,
      communication_events: `${p}_communication_events`,
    });
    // A first start on an empty store: keyed, never indexed by number; the other read models indexed.
    // After the first start, not only once a later one has dropped what it built.
    expect(await prepareProjections(db, names('first'))).toBe(true);
    expect(await keys('first_communication_events')).toEqual([{ _id: 1 }]);
    expect(await prepareProjections(db, names('first'))).toBe(true);
    expect(await keys('first_communication_events')).toEqual([{ _id: 1 }]);
    expect(await keys('first_customers')).toEqual([{ _id: 1 }, { businessUnit: 1, customerExtId: 1 }]);
    // communication_events from before its keys: unkeyed, indexed by number.
    await db
      .collection('older_communication_events')
      .insertOne({ ...event('old', 'COMM-7'), data: '{}' } as Document);
    expect(await prepareProjections(db, names('older'))).toBe(false);
    expect(await keys('older_communication_events')).toEqual([
      { _id: 1 },
      { businessUnit: 1, communicationNumber: 1 },
    ]);
  });

  it('the lookup reads a keyed collection by key and a collection from before by communication number', async () => {
    const lookup = new CommunicationKeyLookup();
    const keyed = db.collection('lookup_keyed');
    await markCommunicationKeys(keyed);
    await keyed.insertMany(
      groupCommunicationEvents([
        event('a', 'COMM-1'),
        event('b', 'COMM-2'),
        event('c', 'COMM-1', 'BU2'),
        event('d', 'COMM-1'),
      ]) as Document[],
    );
    const filter = await lookup.filter(keyed, 'COMM-1');
    expect(filter).toEqual({
      _id: { $regex: `^${communicationKey('COMM-1')}` },
      communicationNumber: 'COMM-1',
    });
    const read = communicationEventsOf((await keyed.find(filter).toArray()) as never[]);
    expect(read.map((e) => [e.businessUnit, e.eventId]).sort()).toEqual([
      ['BU1', 'a'],
      ['BU1', 'd'],
      ['BU2', 'c'],
    ]);
    // The marker is no event.
    expect(communicationEventsOf((await keyed.find({}).toArray()) as never[])).toHaveLength(4);

    // Written before decision 0065: one document per event, `_id` the event id.
    const legacy = db.collection('lookup_legacy');
    await legacy.insertOne({ ...event('old-1', 'COMM-9'), data: '{"channel":"BATCH"}' } as Document);
    expect(await markCommunicationKeys(legacy)).toBe(false);
    const before = await lookup.filter(legacy, 'COMM-9');
    expect(before).toEqual({ communicationNumber: 'COMM-9' });
    const old = communicationEventsOf((await legacy.find(before).toArray()) as never[]);
    expect(old.map((e) => e.eventId)).toEqual(['old-1']);
  });
});
