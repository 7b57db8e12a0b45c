import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { DeliveryStore, type NewDelivery } from './delivery-store';
import { deliveryId } from './deliveries-of';
import { AttemptRecorder } from './attempt-recorder';

/**
 * The callback queue against the real MongoDB-compatible store (FerretDB locally): only pending
 * deliveries are in the queue, a delivery is sent only after a claim on its queue entry wins and the log
 * still says pending, and a queue made
 * stale by a crash between two writes heals without sending anything twice.
 */
const T0 = new Date('2026-11-23T10:00:00.000Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);

function delivery(eventNo: number, over: Partial<NewDelivery> = {}): NewDelivery {
  const eventId = `e-${eventNo}`;
  return {
    _id: `${eventId}|ep-1`,
    eventId,
    endpointId: 'ep-1',
    url: 'http://127.0.0.1:9/callbacks',
    businessUnit: 'DEMO',
    communicationNumber: `comm-${eventNo}`,
    customerExtId: 'C-1',
    streamId: 'DEMO:C-1',
    streamVersion: eventNo,
    cloudEvent: {
      specversion: '1.0',
      id: eventId,
      type: 'com.example.test',
      source: `comm-${eventNo}`,
      subject: 'C-1',
      time: T0.toISOString(),
      data: {},
    },
    nextAttemptAt: T0,
    ...over,
  };
}

describe('DeliveryStore (callback queue)', () => {
  let client: MongoClient;
  let db: Db;
  let store: DeliveryStore;

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
  });
  beforeEach(async () => {
    db = client.db(`crs_it_queue_${randomUUID().slice(0, 8)}`);
    store = new DeliveryStore(db);
    await store.ensureIndexes();
  });
  afterEach(async () => {
    await db.dropDatabase();
  });
  afterAll(async () => {
    await client.close();
  });
  /** A delivery in the log and the queue, not tried yet: what a consumed batch writes for one it queues. */
  const enqueue = (d: NewDelivery, now: Date) =>
    store.recordBatch([{ delivery: d, status: 'pending', attempts: 0, nextAttemptAt: d.nextAttemptAt }], now);

  it('keeps only pending deliveries in the queue: a delivered one leaves it, the log stays', async () => {
    await enqueue(delivery(1), T0);
    await enqueue(delivery(2), T0);
    expect((await store.due(T0, 10)).map((e) => e._id)).toEqual(['e-1|ep-1', 'e-2|ep-1']);

    const [first] = await store.due(T0, 1);
    const claimed = await store.claim(first!, T0, at(30));
    expect(claimed).toMatchObject({ eventId: 'e-1', attempts: 1, url: 'http://127.0.0.1:9/callbacks' });
    await store.recordAttempt(claimed!, { at: T0, status: 204, ms: 3 }, { status: 'delivered' });

    expect((await store.queue.find().toArray()).map((e) => e._id)).toEqual(['e-2|ep-1']);
    const log = await store.collection.findOne({ _id: 'e-1|ep-1' });
    expect(log).toMatchObject({
      status: 'delivered',
      attempts: 1,
      deliveredAt: T0,
      log: [{ status: 204, ms: 3 }],
    });
    expect(await store.pendingCount()).toBe(1);
    // The gauge's figure, from the store's statistics rather than a count of every entry (decision 0070).
    expect(await store.pendingEstimate()).toBe(1);
  });

  it('stores the CloudEvent as one JSON string, and sends one stored as an object before (decision 0042)', async () => {
    const sent = delivery(1, {
      cloudEvent: { ...delivery(1).cloudEvent, data: { level: 'HIGH', factors: [{ id: 'PEP' }] } },
    });
    await enqueue(sent, T0);
    const raw = await store.collection.findOne({ _id: 'e-1|ep-1' });
    expect(typeof raw!.cloudEvent).toBe('string');
    expect(JSON.parse(raw!.cloudEvent as string)).toEqual(sent.cloudEvent);
    expect(await store.claim((await store.due(T0, 1))[0]!, T0, at(30))).toMatchObject({
      cloudEvent: sent.cloudEvent,
    });

    // A delivery written by an earlier version: the whole CloudEvent as an object, its queue entry restored.
    const { cloudEvent, ...older } = delivery(2);
    await store.collection.insertOne({
      ...older,
      cloudEvent,
      status: 'pending',
      attempts: 0,
      log: [],
      createdAt: T0,
    });
    expect(await store.restoreQueue()).toBe(1);
    expect(await store.claim((await store.due(T0, 1))[0]!, T0, at(30))).toMatchObject({ cloudEvent });
    expect((await store.ofCommunication('DEMO', 'comm-2', 10)).map((d) => d.cloudEvent)).toEqual([
      cloudEvent,
    ]);
  });

  it('a repeated enqueue (the Kafka message consumed again) neither duplicates nor revives a delivery', async () => {
    await enqueue(delivery(1), T0);
    await enqueue(delivery(1), at(5));
    expect(await store.collection.countDocuments()).toBe(1);
    expect(await store.queue.countDocuments()).toBe(1);

    const claimed = await store.claim((await store.due(T0, 1))[0]!, T0, at(30));
    await store.recordAttempt(claimed!, { at: T0, status: 200, ms: 1 }, { status: 'delivered' });
    await enqueue(delivery(1), at(60));
    expect(await store.queue.countDocuments()).toBe(0);
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({
      status: 'delivered',
      attempts: 1,
    });
  });

  it('only one of two claimers wins, and the loser stops polling the entry until the lease ends', async () => {
    await enqueue(delivery(1), T0);
    const [entry] = await store.due(T0, 1);
    const [a, b] = await Promise.all([store.claim(entry!, T0, at(30)), store.claim(entry!, T0, at(30))]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await store.due(at(10), 10)).toEqual([]);
    // The attempt never reports back (a crash): after the lease the delivery is due and claimable again.
    const [again] = await store.due(at(31), 10);
    expect(await store.claim(again!, at(31), at(60))).toMatchObject({ attempts: 2 });
  });

  it('claims a round in one go: what is due and pending, in the order given; an ended delivery leaves the queue (decision 0072)', async () => {
    for (const n of [1, 2, 3, 4, 5])
      await enqueue(delivery(n, n === 2 ? { nextAttemptAt: at(100) } : {}), T0);
    // A crash between the log write and the queue removal: e-3 ended, its entry is left behind.
    await store.collection.updateOne({ _id: 'e-3|ep-1' }, { $set: { status: 'delivered' } });
    const entries = (await store.queue.find().toArray()).reverse();

    const claimed = await store.claimMany(entries, T0, at(30));
    expect(claimed.map((d) => [d.eventId, d.attempts, d.status])).toEqual([
      ['e-5', 1, 'pending'],
      ['e-4', 1, 'pending'],
      ['e-1', 1, 'pending'],
    ]);
    expect(claimed[0]!.cloudEvent).toEqual(delivery(5).cloudEvent);
    expect(
      (await store.queue.find().sort({ _id: 1 }).toArray()).map((e) => [e._id, e.nextAttemptAt]),
    ).toEqual([
      ['e-1|ep-1', at(30)],
      ['e-2|ep-1', at(100)],
      ['e-4|ep-1', at(30)],
      ['e-5|ep-1', at(30)],
    ]);
    // Leased: neither this round's entries again nor another claimer wins them before the lease ends.
    expect(await store.claimMany(entries, at(10), at(40))).toEqual([]);
    expect(await new DeliveryStore(db).claimMany(entries, at(10), at(40))).toEqual([]);
  });

  it('two rounds claiming the same entries at once win each entry once', async () => {
    for (const n of [1, 2, 3, 4, 5, 6]) await enqueue(delivery(n), T0);
    const entries = await store.due(T0, 10);
    const [a, b] = await Promise.all([
      store.claimMany(entries.slice(0, 4), T0, at(30)),
      store.claimMany(entries.slice(2), T0, at(30)),
    ]);
    expect([...a, ...b].map((d) => d.eventId).sort()).toEqual(['e-1', 'e-2', 'e-3', 'e-4', 'e-5', 'e-6']);
  });

  it('records the outcomes of a round in one go: delivered and dead leave the queue, a retry is due again later', async () => {
    for (const n of [1, 2, 3]) await enqueue(delivery(n), T0);
    const [one, two, three] = await store.claimMany(await store.due(T0, 10), T0, at(30));
    await store.recordAttempts([
      { delivery: one!, attempt: { at: T0, status: 204, ms: 2 }, next: { status: 'delivered' } },
      { delivery: two!, attempt: { at: T0, status: 410, ms: 3 }, next: { status: 'dead' } },
      {
        delivery: three!,
        attempt: { at: T0, status: 503, ms: 4 },
        next: { status: 'pending', nextAttemptAt: at(8) },
      },
    ]);
    expect(
      (await store.collection.find().sort({ _id: 1 }).toArray()).map((d) => [
        d._id,
        d.status,
        d.attempts,
        d.log,
      ]),
    ).toEqual([
      ['e-1|ep-1', 'delivered', 1, [{ at: T0, status: 204, ms: 2 }]],
      ['e-2|ep-1', 'dead', 1, [{ at: T0, status: 410, ms: 3 }]],
      ['e-3|ep-1', 'pending', 1, [{ at: T0, status: 503, ms: 4 }]],
    ]);
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({ deliveredAt: T0 });
    expect((await store.queue.find().toArray()).map((e) => [e._id, e.nextAttemptAt, e.attempts])).toEqual([
      ['e-3|ep-1', at(8), 1],
    ]);
    expect(await store.claimMany(await store.due(at(8), 10), at(8), at(40))).toMatchObject([
      { eventId: 'e-3', attempts: 2 },
    ]);
  });

  it('the attempt recorder writes the outcomes that end together in one write, each caller answered (decision 0072)', async () => {
    for (const n of [1, 2, 3, 4, 5, 6]) await enqueue(delivery(n), T0);
    const claimed = await store.claimMany(await store.due(T0, 10), T0, at(30));
    const writes = jest.spyOn(store, 'recordAttempts');
    const recorder = new AttemptRecorder(store);
    await Promise.all(
      claimed.map((d) =>
        recorder.record({
          delivery: d,
          attempt: { at: T0, status: 204, ms: 1 },
          next: { status: 'delivered' },
        }),
      ),
    );
    expect(writes).toHaveBeenCalledTimes(1);
    expect(writes.mock.calls[0]![0]).toHaveLength(6);
    expect(await store.pendingCount()).toBe(0);
    expect(await store.collection.countDocuments({ status: 'delivered' })).toBe(6);

    // A write that fails fails each of its callers (their entries stay leased and go again after the lease).
    const lost = await new MongoClient(process.env.MONGODB_URI!).connect();
    const unreachable = new DeliveryStore(lost.db(db.databaseName));
    await lost.close();
    const failing = new AttemptRecorder(unreachable);
    const outcomes = await Promise.allSettled(
      claimed.slice(0, 2).map((d) =>
        failing.record({
          delivery: d,
          attempt: { at: T0, status: 204, ms: 1 },
          next: { status: 'delivered' },
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });

  it('orders due entries from one index (due time, then _id) and replaces the index of a queue from before it', async () => {
    const olderDb = client.db(`crs_it_queue_${randomUUID().slice(0, 8)}`);
    const older = new DeliveryStore(olderDb);
    try {
      await older.queue.createIndex({ nextAttemptAt: 1 });
      await older.ensureIndexes();
      await older.ensureIndexes();
      expect((await older.queue.indexes()).map((i) => i.key)).toEqual([
        { _id: 1 },
        { nextAttemptAt: 1, _id: 1 },
        { streamId: 1 },
      ]);
      for (const n of [3, 1, 2])
        await older.recordBatch(
          [
            {
              delivery: delivery(n, { nextAttemptAt: at(n % 2) }),
              status: 'pending',
              attempts: 0,
              nextAttemptAt: at(n % 2),
            },
          ],
          T0,
        );
      expect((await older.due(at(1), 10)).map((e) => e._id)).toEqual(['e-2|ep-1', 'e-1|ep-1', 'e-3|ep-1']);
      expect((await older.due(at(1), 2)).map((e) => e._id)).toEqual(['e-2|ep-1', 'e-1|ep-1']);
    } finally {
      await olderDb.dropDatabase();
    }
  });

  it('a redelivery written while an attempt is under way is not undone by the outcome of that attempt', async () => {
    await enqueue(delivery(1), T0);
    const [d] = await store.claimMany(await store.due(T0, 10), T0, at(30));
    // Someone asks for the delivery again (the API, `crs redeliver`) while its attempt is under way.
    expect(await store.redeliver({ eventIds: ['e-1'], deadOnly: false }, at(1))).toBe(1);
    await store.recordAttempts([
      { delivery: d!, attempt: { at: at(2), status: 204, ms: 3 }, next: { status: 'delivered' } },
    ]);
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({ status: 'delivered' });
    const [again] = await store.claimMany(await store.due(at(3), 10), at(3), at(40));
    expect(again).toMatchObject({ eventId: 'e-1', status: 'pending', attempts: 1 });
  });

  it('a redelivery the log cannot take back is left out of its round; the rest of the round goes', async () => {
    await enqueue(delivery(1), T0);
    await enqueue(delivery(2), T0);
    const [first] = await store.claimMany(await store.due(T0, 1), T0, at(30));
    await store.recordAttempts([
      { delivery: first!, attempt: { at: T0, status: 410, ms: 1 }, next: { status: 'dead' } },
    ]);
    await store.redeliver({ eventIds: ['e-1'] }, at(100));
    // The store refuses the write that takes e-1 back (one failed command).
    jest.spyOn(store.collection, 'updateOne').mockRejectedValueOnce(new Error('write refused'));
    const round = await store.claimMany(await store.due(at(100), 10), at(100), at(130));
    expect(round.map((d) => d.eventId)).toEqual(['e-2']);
    // Still leased and marked: claimed again after the lease, and taken back then.
    expect(await store.due(at(120), 10)).toEqual([]);
    const [left] = (await store.due(at(130), 10)).filter((e) => e._id === 'e-1|ep-1');
    expect(left).toMatchObject({ redelivery: true });
    expect(await store.claimMany([left!], at(130), at(160))).toMatchObject([
      { eventId: 'e-1', status: 'pending' },
    ]);
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({ status: 'pending' });
  });

  it('a failed attempt reschedules the queue entry; the last one dead-letters and empties the queue', async () => {
    await enqueue(delivery(1), T0);
    const d = await store.claim((await store.due(T0, 1))[0]!, T0, at(30));
    await store.recordAttempt(
      d!,
      { at: T0, status: 500, ms: 2 },
      { status: 'pending', nextAttemptAt: at(8) },
    );
    expect(await store.due(at(7), 10)).toEqual([]);
    const [retry] = await store.due(at(8), 10);
    const d2 = await store.claim(retry!, at(8), at(40));
    await store.recordAttempt(
      d2!,
      { at: at(8), status: null, ms: 3000, error: 'TimeoutError' },
      { status: 'dead' },
    );
    expect(await store.queue.countDocuments()).toBe(0);
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({
      status: 'dead',
      attempts: 2,
      log: [{ status: 500 }, { status: null, error: 'TimeoutError' }],
    });
  });

  it('redelivery puts dead-lettered deliveries back in the queue with a fresh budget, chosen ones by event id', async () => {
    await enqueue(delivery(1), T0);
    await enqueue(delivery(2), T0);
    for (const entry of await store.due(T0, 10)) {
      const d = await store.claim(entry, T0, at(30));
      await store.recordAttempt(
        d!,
        { at: T0, status: 503, ms: 1 },
        { status: entry._id.startsWith('e-1') ? 'dead' : 'delivered' },
      );
    }
    expect(await store.queue.countDocuments()).toBe(0);

    expect(await store.redeliver({ businessUnit: 'DEMO', communicationNumber: 'comm-2' }, at(100))).toBe(0);
    expect(await store.redeliver({ businessUnit: 'DEMO', communicationNumber: 'comm-1' }, at(100))).toBe(1);
    expect(await store.redeliver({ eventIds: ['e-2'], deadOnly: false }, at(100))).toBe(1);
    const due = await store.due(at(100), 10);
    expect(due.map((e) => [e._id, e.attempts, e.redelivery])).toEqual([
      ['e-1|ep-1', 0, true],
      ['e-2|ep-1', 0, true],
    ]);
    // One write, to the queue (decision 0067): the log takes each delivery back when its entry is claimed.
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({ status: 'dead' });
    expect(await store.claim(due[0]!, at(100), at(130))).toMatchObject({ eventId: 'e-1', attempts: 1 });
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({
      status: 'pending',
      attempts: 0,
    });
    expect(await store.claim(due[1]!, at(100), at(130))).toMatchObject({ eventId: 'e-2', status: 'pending' });
  });

  it('a redelivered delivery that ended, its entry left behind by a crash, is not sent again', async () => {
    await enqueue(delivery(1), T0);
    const first = await store.claim((await store.due(T0, 1))[0]!, T0, at(30));
    await store.recordAttempt(first!, { at: T0, status: 503, ms: 1 }, { status: 'dead' });
    await store.redeliver({ eventIds: ['e-1'] }, at(100));
    const again = await store.claim((await store.due(at(100), 1))[0]!, at(100), at(130));
    expect(again).toMatchObject({ eventId: 'e-1', status: 'pending' });
    // The attempt succeeds and the log says so; a crash before the queue entry is removed.
    await store.collection.updateOne({ _id: 'e-1|ep-1' }, { $set: { status: 'delivered' } });
    const [left] = await store.due(at(130), 10);
    expect(left).toMatchObject({ _id: 'e-1|ep-1' });
    expect(left!.redelivery).toBeUndefined();
    expect(await store.claim(left!, at(130), at(160))).toBeNull();
    expect(await store.pendingCount()).toBe(0);
  });

  it('a redelivery cut short leaves nothing to repair: each delivery is either queued as a redelivery or untouched', async () => {
    await enqueue(delivery(1), T0);
    await enqueue(delivery(2), T0);
    for (const entry of await store.due(T0, 10)) {
      const d = await store.claim(entry, T0, at(30));
      await store.recordAttempt(d!, { at: T0, status: 503, ms: 1 }, { status: 'dead' });
    }
    // A crash after the first of two deliveries was redelivered: the same state as a redelivery of one.
    await store.redeliver({ eventIds: ['e-1'], deadOnly: true }, at(100));
    expect(await store.restoreQueue()).toBe(0);
    const [entry, ...rest] = await store.due(at(100), 10);
    expect(rest).toEqual([]);
    const claimed = await store.claim(entry!, at(100), at(130));
    await store.recordAttempt(claimed!, { at: at(100), status: 204, ms: 2 }, { status: 'delivered' });
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({
      status: 'delivered',
      attempts: 1,
      log: [{ status: 503 }, { status: 204 }],
    });
    expect(await store.collection.findOne({ _id: 'e-2|ep-1' })).toMatchObject({ status: 'dead' });
    expect(await store.pendingCount()).toBe(0);
    // The client repeats the request: what the first one did is not done twice, the rest is.
    expect(await store.redeliver({ businessUnit: 'DEMO', communicationNumber: 'comm-2' }, at(200))).toBe(1);
    expect((await store.due(at(200), 10)).map((e) => e._id)).toEqual(['e-2|ep-1']);
  });

  it('a log that starts empty is keyed by communication: a communication is read and redelivered by its key, from the _id index (decision 0066)', async () => {
    expect(await store.markKeys()).toBe(true);
    expect(await store.markKeys()).toBe(true);
    // Indexed by communication number before it was marked (as an earlier release did): at the next start
    // the index goes, and the reads below go by `_id` (decision 0074).
    expect((await store.collection.indexes()).map((i) => i.key)).toContainEqual({
      businessUnit: 1,
      communicationNumber: 1,
    });
    await store.ensureIndexes();
    expect((await store.collection.indexes()).map((i) => i.key)).toEqual([{ _id: 1 }, { status: 1 }]);
    const keyed = (n: number, comm: string, bu = 'DEMO') =>
      delivery(n, {
        _id: deliveryId({ eventId: `e-${n}`, correlationId: comm }, 'ep-1', true),
        communicationNumber: comm,
        businessUnit: bu,
      });
    for (const d of [keyed(1, 'comm-A'), keyed(2, 'comm-B'), keyed(3, 'comm-A'), keyed(4, 'comm-A', 'OTHER')])
      await enqueue(d, T0);

    const filter = { ...(await store.communicationFilter('comm-A')), businessUnit: 'DEMO' };
    const plan = await db.command({ explain: { find: store.collection.collectionName, filter } });
    if (plan.serverInfo?.ferretdbVersion !== undefined)
      expect(JSON.stringify(plan)).toMatch(/USING INDEX \S+__id_/);
    else expect(JSON.stringify(plan)).not.toContain('COLLSCAN');

    expect((await store.ofCommunication('DEMO', 'comm-A', 10)).map((d) => d.eventId)).toEqual(['e-1', 'e-3']);
    expect((await store.ofCommunication('OTHER', 'comm-A', 10)).map((d) => d.eventId)).toEqual(['e-4']);
    expect(await store.ofCommunication('DEMO', 'comm-C', 10)).toEqual([]);

    // Dead-letter comm-A's first delivery: redelivery by communication finds it by key, and only it.
    for (const entry of await store.due(T0, 10)) {
      const d = await store.claim(entry, T0, at(30));
      await store.recordAttempt(
        d!,
        { at: T0, status: 503, ms: 1 },
        { status: d!.eventId === 'e-1' ? 'dead' : 'delivered' },
      );
    }
    expect(await store.redeliver({ businessUnit: 'DEMO', communicationNumber: 'comm-B' }, at(100))).toBe(0);
    expect(await store.redeliver({ communicationNumber: 'comm-A' }, at(100))).toBe(1);
    expect((await store.due(at(100), 10)).map((e) => e._id)).toEqual([keyed(1, 'comm-A')._id]);
    // The marker is no delivery: not restored to the queue, not counted, not redelivered.
    expect(await store.restoreQueue()).toBe(0);
    expect(await store.pendingCount()).toBe(1);
    expect(await store.redeliver({ deadOnly: false, businessUnit: 'DEMO' }, at(200))).toBe(3);
  });

  it('prepares the log at start: an empty one keyed and never indexed by number, one from before unkeyed and indexed (decision 0074)', async () => {
    const keysOf = async (store: DeliveryStore) =>
      (await store.collection.indexes())
        .map((i) => i.key)
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const freshDb = client.db(`crs_it_queue_${randomUUID().slice(0, 8)}`);
    const olderDb = client.db(`crs_it_queue_${randomUUID().slice(0, 8)}`);
    try {
      const fresh = new DeliveryStore(freshDb);
      // After the first start, not only once a later one has dropped what it built.
      expect(await fresh.prepare()).toBe(true);
      expect(await keysOf(fresh)).toEqual([{ _id: 1 }, { status: 1 }]);
      expect(await fresh.prepare()).toBe(true);
      expect(await keysOf(fresh)).toEqual([{ _id: 1 }, { status: 1 }]);
      expect((await fresh.queue.indexes()).map((i) => i.key)).toEqual([
        { _id: 1 },
        { nextAttemptAt: 1, _id: 1 },
        { streamId: 1 },
      ]);

      const older = new DeliveryStore(olderDb);
      const d = delivery(1);
      await older.recordBatch(
        [{ delivery: d, status: 'pending', attempts: 0, nextAttemptAt: d.nextAttemptAt }],
        T0,
      );
      expect(await older.prepare()).toBe(false);
      expect(await keysOf(older)).toEqual([
        { _id: 1 },
        { businessUnit: 1, communicationNumber: 1 },
        { status: 1 },
      ]);
    } finally {
      await freshDb.dropDatabase();
      await olderDb.dropDatabase();
    }
  });

  it('a log written before its keys stays unkeyed, and is read and redelivered by communication number as before', async () => {
    await enqueue(delivery(1), T0);
    expect(await store.markKeys()).toBe(false);
    await store.ensureIndexes();
    // In any order (MongoDB lists them as created, FerretDB by name).
    const keys = (await store.collection.indexes()).map((i) => i.key);
    expect(keys).toHaveLength(3);
    expect(keys).toEqual(
      expect.arrayContaining([{ _id: 1 }, { status: 1 }, { businessUnit: 1, communicationNumber: 1 }]),
    );
    expect(await store.collection.countDocuments()).toBe(1);
    expect((await store.ofCommunication('DEMO', 'comm-1', 10)).map((d) => d._id)).toEqual(['e-1|ep-1']);
    const d = await store.claim((await store.due(T0, 1))[0]!, T0, at(30));
    await store.recordAttempt(d!, { at: T0, status: 503, ms: 1 }, { status: 'dead' });
    expect(await store.redeliver({ businessUnit: 'DEMO', communicationNumber: 'comm-1' }, at(100))).toBe(1);
  });

  it('order per customer: a later event waits while an earlier one of the same lane is pending', async () => {
    await enqueue(delivery(1), T0);
    await enqueue(delivery(2), T0);
    await enqueue(
      delivery(3, { _id: 'e-3|ep-1', streamId: 'DEMO:C-2', customerExtId: 'C-2', streamVersion: 1 }),
      T0,
    );
    const blocked = await store.blockedAmong(await store.due(T0, 10));
    expect([...blocked]).toEqual(['e-2|ep-1']);
  });

  it('heals a queue made stale by a crash between the two writes, without sending anything twice', async () => {
    await enqueue(delivery(1), T0);
    await enqueue(delivery(2), T0);
    // Crash after the log said delivered but before the queue entry was removed.
    await store.collection.updateOne({ _id: 'e-1|ep-1' }, { $set: { status: 'delivered' } });
    // Crash after the log took a delivery but before its queue entry was written.
    await store.queue.deleteOne({ _id: 'e-2|ep-1' });

    expect(await store.restoreQueue()).toBe(1);
    expect(await store.restoreQueue()).toBe(0);
    const due = await store.due(T0, 10);
    expect(due.map((e) => e._id)).toEqual(['e-1|ep-1', 'e-2|ep-1']);
    expect(await store.claim(due[0]!, T0, at(30))).toBeNull();
    expect(await store.claim(due[1]!, T0, at(30))).toMatchObject({ eventId: 'e-2' });
    expect((await store.queue.find().toArray()).map((e) => e._id)).toEqual(['e-2|ep-1']);
  });

  it('recordBatch writes a batch in bulk: the log gets every delivery, the queue only what is pending', async () => {
    await store.recordBatch(
      [
        {
          delivery: delivery(1),
          status: 'delivered',
          attempts: 1,
          attempt: { at: T0, status: 204, ms: 4 },
          nextAttemptAt: T0,
        },
        {
          delivery: delivery(2),
          status: 'pending',
          attempts: 1,
          attempt: { at: T0, status: 500, ms: 2 },
          nextAttemptAt: at(1),
        },
        { delivery: delivery(3), status: 'pending', attempts: 0, nextAttemptAt: T0 },
        {
          delivery: delivery(4, { _id: 'e-4|ep-1', streamId: 'DEMO:C-2' }),
          status: 'dead',
          attempts: 1,
          attempt: { at: T0, status: 503, ms: 1 },
          nextAttemptAt: T0,
        },
      ],
      T0,
    );
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({
      cloudEvent: JSON.stringify(delivery(1).cloudEvent),
      status: 'delivered',
      attempts: 1,
      deliveredAt: T0,
      communicationNumber: 'comm-1',
      log: [{ status: 204, ms: 4 }],
    });
    expect(await store.collection.findOne({ _id: 'e-2|ep-1' })).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: at(1),
      log: [{ status: 500 }],
    });
    expect(await store.collection.findOne({ _id: 'e-4|ep-1' })).toMatchObject({
      status: 'dead',
      attempts: 1,
    });
    expect((await store.queued()).map((e) => [e._id, e.attempts, e.nextAttemptAt])).toEqual([
      ['e-2|ep-1', 1, at(1)],
      ['e-3|ep-1', 0, T0],
    ]);
    // The queue path takes over: the entry waiting behind the failed one is blocked until it ends.
    expect([...(await store.blockedAmong(await store.due(at(1), 10)))]).toEqual(['e-3|ep-1']);
    const entry = (await store.due(at(1), 10)).find((e) => e._id === 'e-2|ep-1');
    const retried = await store.claim(entry!, at(1), at(30));
    expect(retried).toMatchObject({ eventId: 'e-2', attempts: 2 });
  });

  it('recordBatch of a batch consumed again merges into the log by _id: nothing doubled, nothing revived', async () => {
    const batch = [
      {
        delivery: delivery(1),
        status: 'delivered' as const,
        attempts: 1,
        attempt: { at: T0, status: 204, ms: 4 },
        nextAttemptAt: T0,
      },
      {
        delivery: delivery(2),
        status: 'pending' as const,
        attempts: 1,
        attempt: { at: T0, status: 500, ms: 2 },
        nextAttemptAt: at(1),
      },
      { delivery: delivery(3), status: 'pending' as const, attempts: 0, nextAttemptAt: T0 },
    ];
    await store.recordBatch(batch, T0);
    const lookups = jest.spyOn(store, 'statusOf');
    // The same events consumed again after a crash: 1 was sent again, 2 now succeeds, 3 is queued again.
    await store.recordBatch(
      [
        { ...batch[0]!, attempt: { at: at(5), status: 204, ms: 3 } },
        {
          ...batch[1]!,
          status: 'delivered',
          attempt: { at: at(5), status: 200, ms: 3 },
          nextAttemptAt: at(5),
        },
        batch[2]!,
      ],
      at(5),
    );
    // What the log holds of them is read once for the three, not once per delivery.
    expect(lookups.mock.calls).toEqual([[['e-1|ep-1', 'e-2|ep-1', 'e-3|ep-1']]]);
    expect(await store.collection.countDocuments()).toBe(3);
    expect(await store.collection.findOne({ _id: 'e-1|ep-1' })).toMatchObject({
      status: 'delivered',
      log: [{ status: 204 }, { status: 204 }],
    });
    expect(await store.collection.findOne({ _id: 'e-2|ep-1' })).toMatchObject({
      status: 'delivered',
      attempts: 2,
      deliveredAt: at(5),
      log: [{ status: 500 }, { status: 200 }],
    });
    expect((await store.queued()).map((e) => e._id)).toEqual(['e-3|ep-1']);
    // A delivery that ended is not put back in the queue by a repeated batch.
    const d3 = await store.claim((await store.due(T0, 1))[0]!, T0, at(30));
    await store.recordAttempt(d3!, { at: T0, status: 204, ms: 1 }, { status: 'delivered' });
    await store.recordBatch([batch[2]!], at(9));
    expect(await store.queued()).toEqual([]);
  });

  it('recordBatch writes more than one bulk command (over 500 deliveries) in one call', async () => {
    const many = Array.from({ length: 1203 }, (_, i) => ({
      delivery: delivery(i + 1, { _id: `e-${i + 1}|ep-1`, streamId: `DEMO:C-${i}`, streamVersion: 1 }),
      status: (i % 100 === 0 ? 'pending' : 'delivered') as 'pending' | 'delivered',
      attempts: 1,
      attempt: { at: T0, status: i % 100 === 0 ? 500 : 204, ms: 1 },
      nextAttemptAt: at(1),
    }));
    await store.recordBatch(many, T0);
    expect(await store.collection.countDocuments()).toBe(1203);
    expect(await store.queue.countDocuments()).toBe(13);
  });
});
