import { randomUUID } from 'node:crypto';
import { createLogger } from '@crs/runtime';
import { connectMongo } from './mongo';
import { MongoWatchdog } from './mongo-watchdog';

/**
 * Against the real MongoDB-compatible store (FerretDB locally). The driver's stuck monitor cannot be
 * produced on demand, so a client closed behind the service's back stands in for it: pings fail while
 * the store itself is up.
 */
describe('MongoWatchdog', () => {
  const logger = createLogger('watchdog-test', 'silent');
  const settings = {
    MONGODB_URI: process.env.MONGODB_URI!,
    MONGODB_DB: `crs_it_watchdog_${randomUUID().slice(0, 8)}`,
  };

  it('reconnects a client that stays unusable while the store is up, and the handles the service holds work again', async () => {
    const mongo = await connectMongo(settings);
    const items = mongo.db.collection<{ _id: string }>('items');
    await items.insertOne({ _id: 'kept' });
    let t = 0;
    const watchdog = new MongoWatchdog({
      ...mongo,
      settings,
      logger,
      staleAfterMs: 30000,
      pingEveryMs: 0,
      now: () => t,
    });
    try {
      expect(await watchdog.ping()).toBe(true);
      await mongo.client.close(true);
      expect(await watchdog.ping()).toBe(false);
      t = 29999;
      expect(await watchdog.ping()).toBe(false);
      expect(watchdog.reconnects).toBe(0);
      t = 30000;
      await watchdog.ping();
      expect(watchdog.reconnects).toBe(1);
      expect(await watchdog.ping()).toBe(true);
      // The collection handle taken before the failure, not a new one.
      expect(await items.findOne({ _id: 'kept' })).toEqual({ _id: 'kept' });
    } finally {
      await watchdog.stop();
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.client.close();
    }
  });

  it('leaves the client alone while the store is unreachable for a fresh client too', async () => {
    const mongo = await connectMongo(settings);
    let t = 0;
    // The probe goes to a port nothing listens on: the store is "down" for it.
    const down = { ...settings, MONGODB_URI: 'mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=500' };
    const watchdog = new MongoWatchdog({
      ...mongo,
      settings: down,
      logger,
      staleAfterMs: 1000,
      pingEveryMs: 0,
      now: () => t,
    });
    try {
      await mongo.client.close(true);
      await watchdog.ping();
      t = 5000;
      expect(await watchdog.ping()).toBe(false);
      expect(watchdog.reconnects).toBe(0);
    } finally {
      await watchdog.stop();
      await mongo.client.close();
    }
  });
});
