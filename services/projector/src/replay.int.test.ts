import { MongoClient, type Db } from 'mongodb';
import { createLogger } from '@crs/runtime';
import { setUpMessaging, type Messaging } from '@crs/messaging';
import { ProjectionCatalog } from '@crs/store';
import { deleteTopicsWithPrefix, scratchMessagingSettings } from '@crs/testing';
import { replayProjections } from './replay';

/**
 * A replay drops its target collections before it fills them. Targets are named by the replay's suffix
 * (a timestamp): a suffix that names the active read models (a second replay in the same instant) must
 * be refused before anything is dropped.
 */
describe('replay', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const prefix = `crs-test.replay-${run}.`;
  const logger = createLogger('replay-it', 'fatal');
  let messaging: Messaging;
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    messaging = await setUpMessaging(scratchMessagingSettings(prefix), 'replay-it', logger);
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_test_replay_${process.pid}_${Date.now().toString(36)}`);
  });
  afterAll(async () => {
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
    await deleteTopicsWithPrefix(messaging.kafka, prefix);
  });

  it('refuses a suffix that names the active read models and drops nothing', async () => {
    await new ProjectionCatalog(db).activate('customers', 'customers_r1');
    await db.collection<{ _id: string }>('customers_r1').insertOne({ _id: 'DEMO:C-1' });

    await expect(replayProjections({ db, messaging, logger, suffix: 'r1' })).rejects.toMatchObject({
      code: 'REPLAY_TARGET_ACTIVE',
    });
    expect(await new ProjectionCatalog(db).activeName('customers')).toBe('customers_r1');
    expect(await db.collection('customers_r1').find({}).toArray()).toEqual([{ _id: 'DEMO:C-1' }]);
  });

  it('rebuilds an empty log into fresh collections and switches to them', async () => {
    const result = await replayProjections({ db, messaging, logger, suffix: 'r2' });
    expect(result).toMatchObject({ events: 0, customers: 0, erasuresReapplied: 0 });
    expect(result.collections.customers).toBe('customers_r2');
    expect(await new ProjectionCatalog(db).activeName('customers')).toBe('customers_r2');
    expect(Object.keys(result.phases).sort()).toEqual(['activation', 'customers', 'indexes', 'log', 'tail']);
    // The rebuilt read models' indexes; communication_events is keyed, so it is read by `_id` and carries
    // no communication-number index (decision 0074).
    const keys = async (name: string) => (await db.collection(name).indexes()).map((i) => i.key);
    expect(await keys(result.collections.customers)).toEqual([
      { _id: 1 },
      { businessUnit: 1, customerExtId: 1 },
    ]);
    expect(await keys(result.collections.screenings)).toEqual([
      { _id: 1 },
      { streamId: 1, streamVersion: 1 },
    ]);
    expect(await keys(result.collections.communication_events)).toEqual([{ _id: 1 }]);
  });
});
