import { randomUUID } from 'node:crypto';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { OwnedCollections, ProjectionCatalog } from './collections';

/**
 * The projector resolves its read models' names for every batch of every partition at once. The
 * catalogue answers them from one read: concurrent lookups of a name share the read in flight, and an
 * activation (a replay's swap) is seen by the next lookup.
 */
describe('ProjectionCatalog', () => {
  let client: MongoClient;
  let db: Db;
  const finds: string[] = [];

  beforeAll(async () => {
    client = await new MongoClient(process.env.MONGODB_URI!, { monitorCommands: true }).connect();
    db = client.db(`crs_it_catalog_${randomUUID().slice(0, 8)}`);
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && e.databaseName === db.databaseName) finds.push(String(e.command.find));
    });
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });
  beforeEach(() => {
    finds.length = 0;
  });

  it('answers concurrent lookups of a name with one read of the catalogue', async () => {
    const catalog = new ProjectionCatalog(db);
    await catalog.activate('customers', 'customers_r1');
    finds.length = 0;
    const names = await Promise.all(Array.from({ length: 12 }, () => catalog.activeName('customers')));
    expect(new Set(names)).toEqual(new Set(['customers_r1']));
    expect(finds).toEqual([OwnedCollections.projectionCatalog]);
    // Cached afterwards: no further read.
    await expect(catalog.activeName('customers')).resolves.toBe('customers_r1');
    expect(finds).toHaveLength(1);
  });

  it('reads each name once and falls back to the base name without an entry', async () => {
    const catalog = new ProjectionCatalog(db);
    const [a, b, c] = await Promise.all([
      catalog.activeName('assessments'),
      catalog.activeName('screenings'),
      catalog.activeName('assessments'),
    ]);
    expect([a, b, c]).toEqual(['assessments', 'screenings', 'assessments']);
    expect(finds).toHaveLength(2);
  });

  it('sees its own activation at once, even with a read in flight', async () => {
    const catalog = new ProjectionCatalog(db);
    await catalog.activate('communication_events', 'communication_events_r1');
    const inFlight = catalog.activeName('communication_events');
    await catalog.activate('communication_events', 'communication_events_r2');
    await inFlight;
    await expect(catalog.activeName('communication_events')).resolves.toBe('communication_events_r2');
  });

  it('names the active collection of every read model the projector builds', async () => {
    const catalog = new ProjectionCatalog(db);
    await catalog.activate('screenings', 'screenings_r7');
    await expect(catalog.customerProjections()).resolves.toMatchObject({
      customers: expect.any(String),
      assessments: expect.any(String),
      screenings: 'screenings_r7',
      communication_events: expect.any(String),
    });
  });
});
