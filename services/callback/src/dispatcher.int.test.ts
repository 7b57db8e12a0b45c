import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { createLogger, createMetricsRegistry } from '@crs/runtime';
import { TestReceiver, eventually } from '@crs/testing';
import { DeliveryStore, type NewDelivery } from './delivery-store';
import { createCallbackMetrics } from './callback-metrics';
import { CallbackSender } from './callback-sender';
import { DeliverySlots } from './delivery-slots';
import { Dispatcher } from './dispatcher';
import { QueuedLanes } from './queued-lanes';

/**
 * The retry queue's dispatcher reading due entries ahead of its rounds (decision 0071), on the real store
 * and a real receiver: an entry another process took after the read is skipped, not sent twice, and
 * everything else goes out once, each customer's deliveries in stream-version order.
 */
describe('Dispatcher reading due entries ahead', () => {
  let client: MongoClient;
  let db: Db;
  let key: JWK;
  const receiver = new TestReceiver();
  let url = '';

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_dispatch_${randomUUID().slice(0, 8)}`);
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    key = { ...(await exportJWK(privateKey)), kid: 'it-1', alg: 'ES256' };
    url = `http://127.0.0.1:${await receiver.start(0)}/cb`;
  });
  afterAll(async () => {
    await receiver.stop();
    await db.dropDatabase();
    await client.close();
  });

  const T0 = new Date(Date.now() - 1000);
  const delivery = (customer: number, version: number): NewDelivery => {
    const eventId = `e-${customer}-${version}`;
    return {
      _id: `${eventId}|ep-1`,
      eventId,
      endpointId: 'ep-1',
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
  };

  it('skips an entry another process took after the read, and sends the rest once, in order', async () => {
    const store = new DeliveryStore(db);
    await store.ensureIndexes();
    const all = [0, 1, 2, 3, 4].flatMap((c) => [delivery(c, 1), delivery(c, 2)]);
    await store.recordBatch(
      all.map((d) => ({ delivery: d, status: 'pending' as const, attempts: 1, nextAttemptAt: T0 })),
      T0,
    );
    receiver.mode = { kind: 'slow', delayMs: 400 };
    const registry = createMetricsRegistry('callback_dispatch_it');
    const metrics = createCallbackMetrics(registry);
    const sender = new CallbackSender({ signingKey: key, timeoutMs: 3000, metrics, clock: () => new Date() });
    const dispatcher = new Dispatcher({
      store,
      logger: createLogger('callback-dispatch-it', 'error'),
      registry,
      metrics,
      sender,
      // One attempt at a time, every round served from the first read for as long as entries are left.
      slots: new DeliverySlots(1, 1),
      lanes: new QueuedLanes(),
      maxAttempts: 5,
      timeoutMs: 3000,
      backoffBaseMs: 100,
      backoffMaxMs: 200,
      pollMs: 50,
      readAhead: 1e9,
      slowDueReadMs: 0,
    });
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
});
