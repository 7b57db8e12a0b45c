import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createLogger } from '@crs/runtime';
import { dropStoreDatabases, ownerDbName } from './mongo';
import { adoptOwnedCollections } from './owner-databases';

/** Against the real MongoDB-compatible store (FerretDB locally): an upgrade from one database to owner databases. */
describe('adoptOwnedCollections', () => {
  const logger = createLogger('owner-db-test', 'silent');
  const settings = {
    MONGODB_URI: process.env.MONGODB_URI!,
    MONGODB_DB: `crs_it_owner_${randomUUID().slice(0, 8)}`,
  };
  let client: MongoClient;

  beforeAll(async () => {
    client = await new MongoClient(settings.MONGODB_URI).connect();
  });
  afterAll(async () => {
    await dropStoreDatabases(client, settings);
    await client.close();
  });

  it('moves every document of the old collections into the owner database, drops them, and a repeat changes nothing', async () => {
    const old = client.db(settings.MONGODB_DB);
    const reservations = Array.from({ length: 25 }, (_, i) => ({
      _id: `4:DEMO:C-${i}`,
      commandId: `cmd-${i}`,
    }));
    await old.collection<{ _id: string; commandId: string }>('comm_reservations').insertMany(reservations);
    // An interrupted earlier run had copied some documents already.
    const target = client.db(ownerDbName(settings, 'ingress'));
    await target
      .collection<{ _id: string; commandId: string }>('comm_reservations')
      .insertMany(reservations.slice(0, 7));
    await old.collection('customers').insertOne({ _id: 'not-owned' } as never);
    const progress: number[] = [];

    const moved = await adoptOwnedCollections(client, settings, 'ingress', logger, {
      batchSize: 10,
      onProgress: (_c, n) => progress.push(n),
    });

    expect(moved).toEqual({ comm_reservations: 25 });
    expect(progress).toEqual([10, 20, 25]);
    const names = (await old.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).not.toContain('comm_reservations');
    expect(names).toContain('customers');
    const now = await target.collection('comm_reservations').find({}).sort({ _id: 1 }).toArray();
    expect(now).toEqual([...reservations].sort((a, b) => a._id.localeCompare(b._id)));

    expect(await adoptOwnedCollections(client, settings, 'ingress', logger)).toEqual({});
    expect(await target.collection('comm_reservations').countDocuments()).toBe(25);
  });

  it('does nothing when owner databases are off', async () => {
    const single = { ...settings, MONGODB_DB: `${settings.MONGODB_DB}s`, MONGODB_OWNER_DATABASES: false };
    await client
      .db(single.MONGODB_DB)
      .collection('callback_queue')
      .insertOne({ _id: 'q' } as never);
    expect(await adoptOwnedCollections(client, single, 'callback', logger)).toEqual({});
    expect(await client.db(single.MONGODB_DB).collection('callback_queue').countDocuments()).toBe(1);
    await dropStoreDatabases(client, single);
  });
});
