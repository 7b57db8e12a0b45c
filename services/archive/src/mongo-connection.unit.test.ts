import type { Db, MongoClient } from 'mongodb';
import { createLogger } from '@crs/runtime';
import { MongoConnection } from './mongo-connection';

/** A fake client: its db answers pings while `up`; `closed` records a close. */
function fakeClient(name: string, state: { up: boolean }) {
  const closed = { value: false };
  const db = { databaseName: name, state } as unknown as Db;
  const client = {
    close: async () => {
      closed.value = true;
    },
  } as unknown as MongoClient;
  return { client, db, closed };
}

describe('MongoConnection', () => {
  const logger = createLogger('archive-test', 'silent');
  const settings = { MONGODB_URI: 'mongodb://unused', MONGODB_DB: 'x' };
  const ping = async (db: Db) => (db as unknown as { state: { up: boolean } }).state.up;

  it('replaces a client whose pings keep failing once a fresh client can reach the store, and closes the stale one', async () => {
    let t = 0;
    const stuck = fakeClient('stuck', { up: false });
    const fresh = fakeClient('fresh', { up: true });
    const clients = [stuck, fresh];
    const connection = await MongoConnection.open({
      settings,
      logger,
      staleAfterMs: 30000,
      pingEveryMs: 0,
      now: () => t,
      connect: async () => clients.shift()!,
      ping,
    });
    expect(connection.db).toBe(stuck.db);
    expect(await connection.ping()).toBe(false);
    t = 29999;
    expect(await connection.ping()).toBe(false);
    expect(connection.db).toBe(stuck.db);
    t = 30000;
    await connection.ping();
    expect(connection.db).toBe(fresh.db);
    expect(connection.catalog).toBe(connection.catalog);
    expect(stuck.closed.value).toBe(true);
    expect(connection.replacements).toBe(1);
    expect(await connection.ping()).toBe(true);
  });

  it('keeps the client while the store is really down (a fresh client cannot connect) and while pings recover', async () => {
    let t = 0;
    const store = { up: false };
    const first = fakeClient('first', store);
    let attempts = 0;
    const connection = await MongoConnection.open({
      settings,
      logger,
      staleAfterMs: 1000,
      pingEveryMs: 0,
      now: () => t,
      connect: async () => {
        if (attempts++ === 0) return first;
        throw new Error('connect ECONNREFUSED');
      },
      ping,
    });
    await connection.ping();
    t = 5000;
    await connection.ping();
    expect(connection.db).toBe(first.db);
    expect(attempts).toBe(2);
    // The store is back and the client recovers by itself: the failure clock starts anew.
    store.up = true;
    expect(await connection.ping()).toBe(true);
    store.up = false;
    t = 5500;
    await connection.ping();
    expect(attempts).toBe(2);
    expect(connection.replacements).toBe(0);
  });
});
