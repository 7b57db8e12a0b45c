import { AtLeastOnceConsumer } from '@crs/messaging';
import { createLogger, loadConfig, commonConfigSpec, mongoConfigSpec } from '@crs/runtime';
import { connectMongo, pingMongo } from '@crs/store';
import { ServiceHost } from './service-host';

/**
 * On the real stack: the store and messaging path of the host. Readiness reports the store's watchdog and
 * a consumer's assignment; stop leaves the consumer's group, closes the store client and the health server.
 */
describe('ServiceHost on the real stack', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const config = {
    ...loadConfig(
      { ...commonConfigSpec, ...mongoConfigSpec },
      {
        ...process.env,
        TOPIC_PREFIX: `crs-test.host-${run}.`,
        TOPIC_PARTITIONS: '1',
        MONGODB_DB: `crs_it_host_${run.replace(/-/g, '_')}`,
      },
    ),
    HEALTH_PORT: 0,
  };
  const logger = createLogger('host-it', 'fatal');

  afterAll(async () => {
    const mongo = await connectMongo(config);
    await mongo.db.dropDatabase().catch(() => undefined);
    await mongo.client.close();
  });

  const ready = async (host: ServiceHost) => {
    const res = await fetch(`http://127.0.0.1:${host.healthPort()}/health/ready`);
    return { status: res.status, body: (await res.json()) as { checks: Record<string, boolean> } };
  };

  it('is ready with the store and a consumer; stop leaves the group, closes the client and the health server', async () => {
    const host = new ServiceHost({ name: 'host-it', config, logger });
    let db: Awaited<ReturnType<typeof host.connectStore>>['db'] | undefined;
    let consumer: AtLeastOnceConsumer<unknown> | undefined;
    await host.start(async () => {
      await host.serveHealth();
      const mongo = await host.connectStore();
      db = mongo.db;
      await db.collection('items').insertOne({ _id: 'x' } as never);
      const { kafka, serde, topics, prefix } = await host.connectMessaging();
      consumer = new AtLeastOnceConsumer<unknown>({
        kafka,
        serde,
        logger,
        metrics: host.metrics,
        groupId: `${prefix}host-it`,
        topics: [topics.customerEvents],
        handle: async () => undefined,
      });
      await host.startPart(consumer, 'events');
    });
    const port = host.healthPort();
    for (const until = Date.now() + 60000; !consumer!.isReady(); ) {
      if (Date.now() > until) throw new Error('the consumer never got its partitions');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await ready(host)).toEqual({
      status: 200,
      body: { status: 'UP', checks: { mongo: true, events: true, started: true } },
    });
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/store_commands_total\{command="insert",collection="items"/);

    await host.stop();
    expect(consumer!.isReady()).toBe(false);
    // The client is closed: a ping on it fails rather than reconnecting.
    expect(await pingMongo(db!)).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/health/live`)).rejects.toThrow();
  });

  it('watches the store without a readiness check when asked: a client stuck after an outage is reconnected', async () => {
    // Screening's data-key reads: its searches answer without the store, so the store is no readiness
    // check, but a client that never recovers from an outage must still be replaced (the long fault suite's
    // database outage left screening retrying a dead client for minutes).
    const host = new ServiceHost({ name: 'host-it', config, logger });
    let db: Awaited<ReturnType<typeof host.connectStore>>['db'] | undefined;
    let client: Awaited<ReturnType<typeof host.connectStore>>['client'] | undefined;
    await host.start(async () => {
      await host.serveHealth();
      ({ db, client } = await host.connectStore({
        readiness: false,
        watchdog: { staleAfterMs: 0, pingEveryMs: 100 },
      }));
    });
    try {
      expect(await ready(host)).toEqual({ status: 200, body: { status: 'UP', checks: { started: true } } });
      await db!.collection('items').insertOne({ _id: 'kept' } as never);
      // Closed behind the service's back: what the driver's lost server monitor looks like from outside.
      await client!.close(true);
      expect(await pingMongo(db!)).toBe(false);
      let found: unknown = null;
      for (const until = Date.now() + 30000; found === null && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 200));
        found = await db!
          .collection('items')
          .findOne({ _id: 'kept' } as never)
          .catch(() => null);
      }
      expect(found).toEqual({ _id: 'kept' });
    } finally {
      await host.stop();
    }
  });

  it('closes the store when the messaging set-up fails after it connected', async () => {
    const host = new ServiceHost({
      name: 'host-it',
      config: { ...config, SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1/apis/ccompat/v7' },
      logger,
    });
    let db: Awaited<ReturnType<typeof host.connectStore>>['db'] | undefined;
    await expect(
      host.start(async () => {
        await host.serveHealth();
        db = (await host.connectStore()).db;
        expect(await pingMongo(db)).toBe(true);
        await host.connectMessaging();
      }),
    ).rejects.toThrow();
    expect(await pingMongo(db!)).toBe(false);
  });
});
