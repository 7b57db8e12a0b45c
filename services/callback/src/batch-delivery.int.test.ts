import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { DeliveryStore, type NewDelivery } from './delivery-store';
import { TestReceiver, eventually } from '@crs/testing';
import { BatchDelivery, MARK_AHEAD } from './batch-delivery';
import { createCallbackMetrics } from './callback-metrics';
import { CallbackSender } from './callback-sender';
import { DeliverySlots } from './delivery-slots';
import { Dispatcher } from './dispatcher';
import { QueuedLanes } from './queued-lanes';

/**
 * Delivery straight from a consumed batch against the real store (FerretDB locally) and a real HTTP
 * receiver: outcomes written in bulk, only what is not done in the retry queue, order per customer and
 * endpoint kept across the batch path and the queue, a slow receiver handed over instead of holding the
 * batch, and a batch whose write failed written again without sending twice; the progress of a partition
 * read once while this process owns it, again after a group join or a failed batch (decision 0037).
 */
describe('BatchDelivery', () => {
  let client: MongoClient;
  let db: Db;
  let store: DeliveryStore;
  let key: JWK;
  const receiver = new TestReceiver();
  let url = '';
  const running: { dispatcher: Dispatcher; sender: CallbackSender; batch: BatchDelivery }[] = [];

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    key = { ...(await exportJWK(privateKey)), kid: 'it-1', alg: 'ES256' };
    url = `http://127.0.0.1:${await receiver.start(0)}/cb`;
  });
  beforeEach(async () => {
    db = client.db(`crs_it_batch_${randomUUID().slice(0, 8)}`);
    store = new DeliveryStore(db);
    await store.ensureIndexes();
    receiver.mode = { kind: 'ok' };
    receiver.received.length = 0;
    receiver.accepted.length = 0;
  });
  afterEach(async () => {
    for (const r of running.splice(0)) {
      await r.batch.drain(5000);
      await r.dispatcher.stop();
      r.sender.close();
    }
    await db.dropDatabase();
  });
  afterAll(async () => {
    await receiver.stop();
    await client.close();
  });

  const T0 = new Date();
  function delivery(customer: number, version: number, endpointId = 'ep-1'): NewDelivery {
    const eventId = `e-${customer}-${version}`;
    return {
      _id: `${eventId}|${endpointId}`,
      eventId,
      endpointId,
      url,
      businessUnit: 'DEMO',
      communicationNumber: `comm-${customer}`,
      customerExtId: `C-${customer}`,
      streamId: `DEMO:C-${customer}`,
      streamVersion: version,
      cloudEvent: {
        specversion: '1.0',
        id: eventId,
        type: 'com.crs.test',
        source: `comm-${customer}`,
        subject: `C-${customer}`,
        time: T0.toISOString(),
        data: { version },
      },
      nextAttemptAt: T0,
    };
  }

  function build(over: { handoverMs?: number; maxAttempts?: number; store?: DeliveryStore } = {}) {
    const registry = createMetricsRegistry('callback_it');
    const metrics = createCallbackMetrics(registry);
    const logger = createLogger('callback-it', 'error');
    const sender = new CallbackSender({ signingKey: key, timeoutMs: 3000, metrics, clock: () => new Date() });
    const slots = new DeliverySlots(8, 4);
    const lanes = new QueuedLanes();
    const retry = {
      maxAttempts: over.maxAttempts ?? 5,
      timeoutMs: 3000,
      backoffBaseMs: 100,
      backoffMaxMs: 200,
    };
    const dispatcher = new Dispatcher({
      ...retry,
      store: over.store ?? store,
      logger,
      registry,
      metrics,
      sender,
      slots,
      lanes,
      pollMs: 50,
      refreshMs: 200,
    });
    const batch = new BatchDelivery({
      ...retry,
      store: over.store ?? store,
      logger,
      metrics,
      sender,
      slots,
      lanes,
      handoverMs: over.handoverMs ?? 1000,
      slowEndpointMs: 2000,
      queued: () => dispatcher.kick(),
    });
    running.push({ dispatcher, sender, batch });
    return { batch, dispatcher, lanes, metrics: registry };
  }
  const idsAt = (r: TestReceiver) => r.accepted.map((c) => String(c.headers['ce-id']));

  /** The retry queue's dispatcher alone, every round served from its first read of due entries (decision 0071). */
  function readingAhead(name: string, slots: DeliverySlots) {
    const registry = createMetricsRegistry(name);
    const metrics = createCallbackMetrics(registry);
    const sender = new CallbackSender({ signingKey: key, timeoutMs: 3000, metrics, clock: () => new Date() });
    const dispatcher = new Dispatcher({
      store,
      logger: createLogger('callback-it', 'error'),
      registry,
      metrics,
      sender,
      slots,
      lanes: new QueuedLanes(),
      maxAttempts: 5,
      timeoutMs: 3000,
      backoffBaseMs: 100,
      backoffMaxMs: 200,
      pollMs: 50,
      readAhead: 1e9,
      slowDueReadMs: 0,
    });
    return { dispatcher, sender };
  }

  it('delivers a batch straight away, signed, and writes the log with an empty queue', async () => {
    const { batch } = build();
    const batchOf = [1, 2, 3].flatMap((c) => [delivery(c, 1), delivery(c, 2), delivery(c, 3)]);
    await batch.deliver(batchOf);
    expect(idsAt(receiver).sort()).toEqual(batchOf.map((d) => d.eventId).sort());
    for (const c of [1, 2, 3]) {
      const own = idsAt(receiver).filter((id) => id.startsWith(`e-${c}-`));
      expect(own).toEqual([`e-${c}-1`, `e-${c}-2`, `e-${c}-3`]);
    }
    expect(receiver.accepted[0]!.headers).toMatchObject({
      'ce-specversion': '1.0',
      'ce-type': 'com.crs.test',
      'content-type': 'application/json',
    });
    expect(receiver.accepted[0]!.headers['x-crs-signature']).toMatch(/^[\w-]+\.\.[\w-]+$/);
    expect(await store.queue.countDocuments()).toBe(0);
    const log = await store.collection.find({ communicationNumber: 'comm-2' }).sort({ _id: 1 }).toArray();
    expect(log.map((d) => [d.status, d.attempts, d.log.length])).toEqual([
      ['delivered', 1, 1],
      ['delivered', 1, 1],
      ['delivered', 1, 1],
    ]);
  });

  it('a failed attempt goes to the retry queue with the rest of its lane behind it; later batches wait too', async () => {
    const { batch, dispatcher } = build();
    receiver.mode = { kind: 'fail', status: 500 };
    await batch.deliver([delivery(1, 1), delivery(1, 2)]);
    expect(receiver.received.map((c) => c.headers['ce-id'])).toEqual(['e-1-1']);
    expect((await store.queued()).map((e) => [e._id, e.attempts]).sort()).toEqual([
      ['e-1-1|ep-1', 1],
      ['e-1-2|ep-1', 0],
    ]);
    // A later batch of the same customer does not overtake; another customer is not held up.
    receiver.mode = { kind: 'ok' };
    await batch.deliver([delivery(1, 3), delivery(2, 1)]);
    expect(idsAt(receiver)).toEqual(['e-2-1']);
    await dispatcher.start();
    await eventually(async () => idsAt(receiver).length === 4, 20000, 'queued callbacks');
    expect(idsAt(receiver).filter((id) => id.startsWith('e-1-'))).toEqual(['e-1-1', 'e-1-2', 'e-1-3']);
    await eventually(async () => (await store.queue.countDocuments()) === 0, 10000, 'queue drained');
    expect(await store.collection.findOne({ _id: 'e-1-1|ep-1' })).toMatchObject({
      status: 'delivered',
      attempts: 2,
      log: [{ status: 500 }, { status: 204 }],
    });
  });

  it('dead-letters on the first attempt when the budget is one attempt', async () => {
    const { batch } = build({ maxAttempts: 1 });
    receiver.mode = { kind: 'fail', status: 503 };
    await batch.deliver([delivery(1, 1)]);
    expect(await store.collection.findOne({ _id: 'e-1-1|ep-1' })).toMatchObject({
      status: 'dead',
      attempts: 1,
    });
    expect(await store.queue.countDocuments()).toBe(0);
  });

  it('hands a slow attempt over instead of holding the batch, and records it when it ends', async () => {
    const { batch, dispatcher } = build({ handoverMs: 300 });
    await dispatcher.start();
    receiver.mode = { kind: 'slow', delayMs: 1500 };
    const started = Date.now();
    await batch.deliver([delivery(1, 1), delivery(1, 2), delivery(2, 1, 'ep-2')]);
    // The batch was written long before the receiver answered (the slow endpoint's lanes were queued).
    expect(Date.now() - started).toBeLessThan(1400);
    expect((await store.queued()).map((e) => e._id).sort()).toContain('e-1-1|ep-1');
    await eventually(async () => (await store.queue.countDocuments()) === 0, 20000, 'handed over and queued');
    expect(idsAt(receiver).filter((id) => id.startsWith('e-1-'))).toEqual(['e-1-1', 'e-1-2']);
    expect(new Set(idsAt(receiver)).size).toBe(idsAt(receiver).length);
    expect(await store.collection.findOne({ _id: 'e-1-1|ep-1' })).toMatchObject({
      status: 'delivered',
      attempts: 1,
      log: [{ status: 204 }],
    });
  });

  it('a batch whose write failed is written again on the retry without sending again', async () => {
    let failures = 1;
    const flaky = new DeliveryStore(db);
    const write = flaky.recordBatch.bind(flaky);
    flaky.recordBatch = async (outcomes, now) => {
      if (failures-- > 0) throw new Error('store unavailable');
      return write(outcomes, now);
    };
    const { batch } = build({ store: flaky });
    const batchOf = [delivery(1, 1), delivery(1, 2), delivery(2, 1)];
    await expect(batch.deliver(batchOf)).rejects.toThrow('store unavailable');
    await batch.deliver(batchOf);
    expect(idsAt(receiver).sort()).toEqual(['e-1-1', 'e-1-2', 'e-2-1']);
    expect(await store.collection.countDocuments({ status: 'delivered' })).toBe(3);
  });

  it('a redelivery written by another process is picked up and blocks the lane until it is sent', async () => {
    const { batch, dispatcher, lanes } = build();
    receiver.mode = { kind: 'fail', status: 500 };
    const one = build({ maxAttempts: 1 }).batch;
    await one.deliver([delivery(1, 1)]);
    expect(await store.collection.findOne({ _id: 'e-1-1|ep-1' })).toMatchObject({ status: 'dead' });
    receiver.mode = { kind: 'ok' };
    // As the ingress's redeliver route does, through the same store code.
    expect(await new DeliveryStore(db).redeliver({ eventIds: ['e-1-1'] }, new Date())).toBe(1);
    await dispatcher.start();
    await eventually(async () => idsAt(receiver).includes('e-1-1'), 10000, 'redelivered');
    await eventually(async () => !lanes.has('DEMO:C-1|ep-1'), 10000, 'lane free again');
    await batch.deliver([delivery(1, 2)]);
    expect(idsAt(receiver)).toEqual(['e-1-1', 'e-1-2']);
  });

  it('a batch consumed again (its offsets not yet committed at a crash) sends nothing that ended', async () => {
    const { batch } = build();
    const from = (offsets: number[]) => ({ partitionKey: 'events|0', offsets, lastOffset: offsets.at(-1)! });
    receiver.mode = { kind: 'fail', status: 500 };
    await batch.deliver([delivery(1, 1)], from([10]));
    receiver.mode = { kind: 'ok' };
    await batch.deliver([delivery(2, 1), delivery(2, 2)], from([11, 12]));
    expect(idsAt(receiver)).toEqual(['e-2-1', 'e-2-2']);
    // A new process consumes offsets 10-13 again: 10 is pending in the queue, 11 and 12 were delivered.
    const again = build().batch;
    await again.deliver(
      [delivery(1, 1), delivery(2, 1), delivery(2, 2), delivery(3, 1)],
      from([10, 11, 12, 13]),
    );
    expect(idsAt(receiver)).toEqual(['e-2-1', 'e-2-2', 'e-3-1']);
    expect(await store.collection.findOne({ _id: 'e-2-1|ep-1' })).toMatchObject({ log: [{ status: 204 }] });
    expect((await store.queued()).map((e) => [e._id, e.attempts])).toEqual([['e-1-1|ep-1', 1]]);
    // Marked once, ahead of what was consumed (decision 0040).
    expect(await store.sentUpTo('events|0')).toBe(10 + MARK_AHEAD);
  });

  const consumed = (partitionKey: string, offsets: number[]) => ({
    partitionKey,
    offsets,
    lastOffset: offsets.at(-1)!,
  });

  it('reads the progress of a partition once while it owns it, and again after a group join', async () => {
    const { batch } = build();
    const reads = jest.spyOn(store, 'sentUpTo');
    await batch.deliver([delivery(1, 1)], consumed('events|0', [10]));
    await batch.deliver([delivery(2, 1)], consumed('events|0', [11]));
    await batch.deliver([delivery(3, 1)], consumed('events|1', [5]));
    await batch.deliver([delivery(4, 1)], consumed('events|0', [12]));
    expect(reads.mock.calls).toEqual([['events|0'], ['events|1']]);
    // Meanwhile (a rebalance) another instance owned events|0, delivered offsets 13 and 14 and marked them.
    const other = build({ store: new DeliveryStore(db) }).batch;
    await other.deliver([delivery(5, 1), delivery(6, 1)], consumed('events|0', [13, 14]));
    // The partition comes back at the next join: its progress is read again, so 13 and 14 are found in
    // the log instead of being sent a second time.
    batch.forgetProgress();
    await batch.deliver([delivery(5, 1), delivery(6, 1), delivery(7, 1)], consumed('events|0', [13, 14, 15]));
    await batch.deliver([delivery(8, 1)], consumed('events|1', [6]));
    expect(reads.mock.calls).toEqual([['events|0'], ['events|1'], ['events|0'], ['events|1']]);
    // Each sent once (two communications of one batch are sent side by side: their order is not fixed).
    expect(idsAt(receiver).sort()).toEqual([
      'e-1-1',
      'e-2-1',
      'e-3-1',
      'e-4-1',
      'e-5-1',
      'e-6-1',
      'e-7-1',
      'e-8-1',
    ]);
    reads.mockRestore();
    expect(await store.sentUpTo('events|0')).toBe(10 + MARK_AHEAD);
    expect(await store.sentUpTo('events|1')).toBe(5 + MARK_AHEAD);
  });

  it('a batch consumed again after a failed write reads the progress again and sends nothing twice', async () => {
    let recordFailures = 0;
    let markFailures = 0;
    const flaky = new DeliveryStore(db);
    const write = flaky.recordBatch.bind(flaky);
    flaky.recordBatch = async (outcomes, now) => {
      if (recordFailures-- > 0) throw new Error('store unavailable');
      return write(outcomes, now);
    };
    // The mark is written, but its answer is lost.
    const mark = flaky.markSending.bind(flaky);
    flaky.markSending = async (partitionKey, offset) => {
      await mark(partitionKey, offset);
      if (markFailures-- > 0) throw new Error('connection reset');
    };
    const reads = jest.spyOn(flaky, 'sentUpTo');
    const { batch } = build({ store: flaky });
    await batch.deliver([delivery(1, 1)], consumed('events|0', [10]));
    recordFailures = 1;
    const twice = [delivery(2, 1), delivery(2, 2), delivery(3, 1)];
    await expect(batch.deliver(twice, consumed('events|0', [11, 12, 13]))).rejects.toThrow(
      'store unavailable',
    );
    // Offsets not committed: the same messages are consumed again by this process.
    await batch.deliver(twice, consumed('events|0', [11, 12, 13]));
    expect(reads).toHaveBeenCalledTimes(2);
    // Consumed once more without a failure (the commit was lost): found in the log, progress known.
    await batch.deliver(twice, consumed('events|0', [11, 12, 13]));
    expect(reads).toHaveBeenCalledTimes(2);
    // Past the mark (it runs MARK_AHEAD ahead): the next mark is written, but its answer is lost.
    const past = 10 + MARK_AHEAD + 1;
    markFailures = 1;
    await expect(batch.deliver([delivery(4, 1)], consumed('events|0', [past]))).rejects.toThrow(
      'connection reset',
    );
    await batch.deliver([delivery(4, 1)], consumed('events|0', [past]));
    await batch.deliver([delivery(5, 1)], consumed('events|0', [past + 1]));
    expect(reads).toHaveBeenCalledTimes(3);
    // Each once (customers 2 and 3 are sent concurrently).
    expect(idsAt(receiver).sort()).toEqual(['e-1-1', 'e-2-1', 'e-2-2', 'e-3-1', 'e-4-1', 'e-5-1']);
    expect(await store.collection.countDocuments({ status: 'delivered' })).toBe(6);
    expect(await store.sentUpTo('events|0')).toBe(past + MARK_AHEAD);
  });

  it('marks a partition once per MARK_AHEAD offsets, not once per batch, and a new owner looks up what lies under the mark', async () => {
    const marking = new DeliveryStore(db);
    const marks = jest.spyOn(marking, 'markSending');
    const { batch } = build({ store: marking });
    for (let offset = 100; offset < 110; offset += 1)
      await batch.deliver([delivery(offset, 1)], consumed('events|0', [offset]));
    expect(marks.mock.calls).toEqual([['events|0', 100 + MARK_AHEAD]]);
    await batch.deliver([delivery(200, 1)], consumed('events|0', [100 + MARK_AHEAD + 1]));
    expect(marks.mock.calls).toEqual([
      ['events|0', 100 + MARK_AHEAD],
      ['events|0', 100 + 2 * MARK_AHEAD + 1],
    ]);
    marks.mockRestore();
    // A new process takes the partition over and consumes 105-111 again (never committed): 105-109 are in
    // the log and not sent again; 110 and 111 were never sent (under the mark all the same) and are sent.
    const lookups = new DeliveryStore(db);
    const looked = jest.spyOn(lookups, 'statusOf');
    const again = build({ store: lookups }).batch;
    const offsets = [105, 106, 107, 108, 109, 110, 111];
    await again.deliver(
      offsets.map((o) => delivery(o, 1)),
      consumed('events|0', offsets),
    );
    expect(looked).toHaveBeenCalledTimes(1);
    expect(
      idsAt(receiver)
        .filter((id) => /^e-1(0[5-9]|1[01])-1$/.test(id))
        .sort(),
    ).toEqual(['e-105-1', 'e-106-1', 'e-107-1', 'e-108-1', 'e-109-1', 'e-110-1', 'e-111-1']);
  });

  /**
   * The retry queue's dispatcher reading due entries ahead of its rounds (decision 0071): an entry another
   * process took after the read is skipped, not sent twice, and everything else goes out once, each
   * customer's deliveries in stream-version order.
   */
  it('skips an entry another process took after the read, and sends the rest once, in order', async () => {
    const all = [0, 1, 2, 3, 4].flatMap((c) => [delivery(c, 1), delivery(c, 2)]);
    await store.recordBatch(
      all.map((d) => ({ delivery: d, status: 'pending' as const, attempts: 1, nextAttemptAt: T0 })),
      T0,
    );
    receiver.mode = { kind: 'slow', delayMs: 400 };
    // One attempt at a time, every round served from the first read for as long as entries are left.
    const { dispatcher, sender } = readingAhead('callback_read_ahead_it', new DeliverySlots(1, 1));
    try {
      await dispatcher.start();
      await eventually(async () => receiver.received.length > 0, 10_000, 'a first attempt');
      // Another process (a second callback instance) delivers customer 3's first event meanwhile.
      const other = new DeliveryStore(db);
      const [entry] = (await other.due(new Date(), 100)).filter((e) => e._id === 'e-3-1|ep-1');
      const taken = await other.claim(entry!, new Date(), new Date(Date.now() + 60_000));
      await other.recordAttempt(taken!, { at: new Date(), status: 204, ms: 1 }, { status: 'delivered' });

      await eventually(async () => (await store.pendingCount()) === 0, 30_000, 'an empty queue');
      const ids = receiver.accepted.map((c) => String(c.headers['ce-id']));
      expect(ids).not.toContain('e-3-1');
      expect([...ids].sort()).toEqual(
        all
          .map((d) => d.eventId)
          .filter((id) => id !== 'e-3-1')
          .sort(),
      );
      for (const c of [0, 1, 2, 4]) expect(ids.indexOf(`e-${c}-1`)).toBeLessThan(ids.indexOf(`e-${c}-2`));
    } finally {
      await dispatcher.stop();
      sender.close();
    }
  });
  /**
   * A round of the retry queue's dispatcher (decision 0072): the store is asked which lanes wait for about
   * as many as can go, the picks are claimed in one go, and everything goes out once, in order, a lane
   * behind an entry not yet due held back.
   */
  it('claims a round in one go, asks which lanes wait only for about as many as can go, and keeps each lane in order', async () => {
    const all = Array.from({ length: 40 }, (_, c) => [delivery(c, 1), delivery(c, 2)]).flat();
    const held = [40, 41, 42].flatMap((c) => [
      { ...delivery(c, 1), nextAttemptAt: new Date(Date.now() + 3_600_000) },
      delivery(c, 2),
    ]);
    await store.recordBatch(
      [...all, ...held].map((d) => ({
        delivery: d,
        status: 'pending' as const,
        attempts: 1,
        nextAttemptAt: d.nextAttemptAt,
      })),
      T0,
    );
    const asked = jest.spyOn(store, 'blockedAmong');
    const reads = jest.spyOn(store, 'due');
    const claims = jest.spyOn(store, 'claimMany');
    // Every round served from one read of everything due (86 entries, 43 lanes).
    const { dispatcher, sender } = readingAhead('callback_rounds_it', new DeliverySlots(4, 4));
    try {
      await dispatcher.start();
      await eventually(async () => (await store.pendingCount()) === held.length, 30_000, 'the rest sent');
      const ids = idsAt(receiver);
      expect([...ids].sort()).toEqual(all.map((d) => d.eventId).sort());
      for (let c = 0; c < 40; c++) expect(ids.indexOf(`e-${c}-1`)).toBeLessThan(ids.indexOf(`e-${c}-2`));
      for (const [candidates] of asked.mock.calls) expect(candidates.length).toBeLessThanOrEqual(8);
      expect(Math.max(...claims.mock.calls.map(([entries]) => entries.length))).toBeGreaterThan(1);
      // Rounds were served from entries read ahead (decision 0071): fewer reads than claims (a read per
      // round without it).
      expect(reads.mock.calls.length).toBeLessThan(claims.mock.calls.length);
    } finally {
      await dispatcher.stop();
      sender.close();
    }
  });
  it('a round whose second lane lookup fails gives back the slots its first one took', async () => {
    const all = Array.from({ length: 12 }, (_, c) => delivery(c, 1));
    await store.recordBatch(
      all.map((d) => ({ delivery: d, status: 'pending' as const, attempts: 1, nextAttemptAt: T0 })),
      T0,
    );
    // The store's first answer holds back all but one lane, so the round asks again, and that read fails.
    jest
      .spyOn(store, 'blockedAmong')
      .mockImplementationOnce(async (candidates) => new Set(candidates.slice(1).map((d) => d._id)))
      .mockRejectedValueOnce(new Error('store unreachable'));
    const slots = new DeliverySlots(4, 4);
    const { dispatcher, sender } = readingAhead('callback_round_fails_it', slots);
    try {
      await dispatcher.start();
      await eventually(async () => (await store.pendingCount()) === 0, 30_000, 'every delivery sent');
      expect([...idsAt(receiver)].sort()).toEqual(all.map((d) => d.eventId).sort());
      await eventually(async () => slots.inFlight === 0, 5_000, 'every slot given back');
    } finally {
      await dispatcher.stop();
      sender.close();
    }
  });
  it('lanes found waiting leave the round, so the lanes after them go (one endpoint, more waiting lanes than it may try)', async () => {
    // Six customers whose next delivery waits behind one not due for an hour, due earliest; ten others.
    const waiting = [0, 1, 2, 3, 4, 5].flatMap((c) => [
      { ...delivery(c, 1), nextAttemptAt: new Date(Date.now() + 3_600_000) },
      { ...delivery(c, 2), nextAttemptAt: new Date(T0.getTime() - 1000) },
    ]);
    const free = Array.from({ length: 10 }, (_, c) => delivery(10 + c, 1));
    await store.recordBatch(
      [...waiting, ...free].map((d) => ({
        delivery: d,
        status: 'pending' as const,
        attempts: 1,
        nextAttemptAt: d.nextAttemptAt,
      })),
      T0,
    );
    // Two attempts at once to the endpoint: a lookup asks about four of its lanes at most.
    const { dispatcher, sender } = readingAhead('callback_waiting_lanes_it', new DeliverySlots(8, 2));
    try {
      await dispatcher.start();
      await eventually(async () => receiver.accepted.length >= free.length, 30_000, 'the free lanes sent');
      expect([...idsAt(receiver)].sort()).toEqual(free.map((d) => d.eventId).sort());
      expect(await store.pendingCount()).toBe(waiting.length);
    } finally {
      await dispatcher.stop();
      sender.close();
    }
  });
});
