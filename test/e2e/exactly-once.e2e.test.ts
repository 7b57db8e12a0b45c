import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { Db } from 'mongodb';
import { commonConfigSpec, createLogger, loadConfig } from '@crs/runtime';
import { StreamReader, setUpMessaging, type Messaging } from '@crs/messaging';
import type { CustomerEvent } from '@crs/contracts';
import { CustomerProjectionNames, ProjectionCatalog, projectionContents } from '@crs/store';
import { ROOT, TestCluster, eventually, localToken, uniqueId } from '@crs/testing';

const run = promisify(execFile);
const N = Number(process.env.EOS_CUSTOMERS ?? 120);

/**
 * The decider is killed (SIGKILL) in the middle of a stream of imports and restarted. Afterwards every
 * accepted request has exactly one set of events in the log (none lost, none doubled), and the read
 * models rebuilt from the log by a replay equal the live ones.
 */
describe('exactly-once through a decider crash, and replay', () => {
  // A namespace of its own per run: the assertions read the whole event log of the namespace.
  const cluster = new TestCluster(`eos-${Date.now().toString(36)}`);
  let token: string;
  let db: Db;
  let messaging: Messaging;
  const logger = createLogger('e2e-eos', 'warn');

  beforeAll(async () => {
    await cluster.dropDatabase();
    await cluster.start();
    token = await localToken();
    db = await cluster.db();
    const config = loadConfig(commonConfigSpec, {
      ...process.env,
      TOPIC_PREFIX: `${cluster.namespace}.`,
      LOG_LEVEL: 'warn',
    });
    messaging = await setUpMessaging(config, 'e2e-eos', logger);
  });
  afterAll(async () => {
    await cluster.stop();
    await cluster.dropDatabase();
    await cluster.closeDb();
  });

  async function readLog(): Promise<CustomerEvent[]> {
    const events: CustomerEvent[] = [];
    const reader = new StreamReader<CustomerEvent>({
      kafka: messaging.kafka,
      serde: messaging.serde,
      logger,
      topic: messaging.topics.customerEvents,
      groupPrefix: `${cluster.namespace}.e2e-reader`,
      onMessage: (m) => {
        events.push(m.value);
      },
    });
    await reader.start();
    await reader.waitUntilCaughtUp();
    await reader.stop();
    return events;
  }

  /** The replay CLI on this test's namespace and database. */
  const replayCli = (...args: string[]) =>
    run(process.execPath, [join(ROOT, 'services/projector/dist/cli/replay.js'), ...args], {
      env: {
        ...process.env,
        TOPIC_PREFIX: `${cluster.namespace}.`,
        MONGODB_DB: cluster.dbName,
        TOPIC_REPLICATION_FACTOR: '1',
      },
      maxBuffer: 64 * 1024 * 1024,
    });
  it('loses and doubles nothing when the decider is killed mid-stream', async () => {
    const accepted: string[] = [];
    let sent = 0;
    let killed = false;
    let restarted: Promise<void> | undefined;
    const send = async () => {
      while (sent < N) {
        const i = sent++;
        const comm = uniqueId(`eos${i}`);
        const res = await cluster.fetch('/core-ws-rest/customer', {
          method: 'POST',
          token,
          body: JSON.stringify({
            communicationNumber: comm,
            requester: 'eos',
            businessUnit: 'DEMO',
            action: 'CREATE',
            sourceOfRiskLevel: 'IMPORT',
            riskLevel: 'LOW',
            customerStatus: 'ACTIVE',
            entityType: 'ORGANIZATION',
            customerExtId: `org-${comm}`,
            title: `Org ${i}`,
          }),
        });
        if (res.status === 200) accepted.push(comm);
        if (!killed && accepted.length >= N / 3) {
          killed = true;
          await cluster.stopService('customer', 'SIGKILL');
          restarted = new Promise((r) => setTimeout(r, 1500)).then(() => cluster.startService('customer'));
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, send));
    await restarted;
    expect(killed).toBe(true);
    expect(accepted.length).toBe(N);

    // Every accepted request reaches the read model...
    const customers = await new ProjectionCatalog(db).collection('customers');
    await eventually(
      async () => (await customers.countDocuments({ riskLevel: 'LOW' })) >= N,
      120000,
      'all customers projected',
    );

    // ...and the log holds exactly one set of events per accepted request.
    const log = await readLog();
    const byComm = new Map<string, CustomerEvent[]>();
    for (const e of log) byComm.set(e.correlationId, [...(byComm.get(e.correlationId) ?? []), e]);
    const ids = new Set(log.map((e) => e.eventId));
    expect(ids.size).toBe(log.length);
    expect(log.length).toBe(3 * N);
    for (const comm of accepted) {
      const events = byComm.get(comm) ?? [];
      expect({ comm, types: events.map((e) => e.type) }).toEqual({
        comm,
        types: ['CustomerCreated', 'CustomerStatusChanged', 'RiskAssessed'],
      });
      expect(events.map((e) => e.streamVersion)).toEqual([1, 2, 3]);
    }
  }, 600000);

  // Replay speed is the store's write speed (FerretDB on SQLite locally): allow for a loaded machine.
  it('a replay rebuilds read models equal to the live ones and swaps them in', async () => {
    const catalog = new ProjectionCatalog(db);
    // communication_events folds the events one write saw (decision 0050): compared event by event.
    const contents = async () => projectionContents(db, await catalog.customerProjections());
    const live = await contents();
    // The archive service owns operations and alerts (filled from its own log, not the customer events):
    // whatever they hold must survive a replay of the customer projections untouched.
    const archiveOwned = ['operations', 'alerts'] as const;
    const before: Record<string, { name: string; docs: unknown[] }> = {};
    for (const n of archiveOwned) {
      const name = await catalog.activeName(n);
      await db
        .collection<{ _id: string; businessUnit: string; marker: boolean }>(name)
        .insertOne({ _id: `${n}-kept-${uniqueId('m')}`, businessUnit: 'DEMO', marker: true });
      before[n] = { name, docs: await db.collection(name).find({}).sort({ _id: 1 }).toArray() };
      expect(before[n]!.docs.length).toBeGreaterThan(0);
    }
    const { stdout, stderr } = await replayCli();
    // Long work reports progress: the log read, then the customers written, and each phase's time.
    const lines = `${stdout}${stderr}`
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const progress = lines.filter((l) => l.msg === 'replay progress');
    expect(progress.some((l) => l.phase === 'log')).toBe(true);
    expect(progress.filter((l) => l.phase === 'customers').at(-1)).toMatchObject({
      written: String(N),
      total: String(N),
      percent: 100,
    });
    const done = lines.find((l) => l.msg === 'replay done; new projections active');
    expect(done).toMatchObject({ customers: N });
    expect(Object.keys(done!.phases as object).sort()).toEqual(
      ['activation', 'customers', 'indexes', 'log', 'tail'].sort(),
    );
    catalog.invalidate();
    for (const n of CustomerProjectionNames) expect(await catalog.activeName(n)).not.toBe(n);
    expect(await contents()).toEqual(live);
    expect(live.communication_events.length).toBeGreaterThanOrEqual(N);
    expect(live.customers!.length).toBe(N);
    for (const n of archiveOwned) {
      expect(await catalog.activeName(n)).toBe(before[n]!.name);
      expect(await (await catalog.collection(n)).find({}).sort({ _id: 1 }).toArray()).toEqual(
        before[n]!.docs,
      );
    }
  }, 600000);

  it('replay --build-only builds equal read models beside the live ones and leaves them active', async () => {
    const catalog = new ProjectionCatalog(db);
    const active = await catalog.customerProjections();
    const live = await projectionContents(db, active);
    const { stdout, stderr } = await replayCli('--build-only');
    const done = `${stdout}${stderr}`
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; collections?: Record<string, string> })
      .find((l) => l.msg === 'replay done; new projections built, not active');
    expect(done?.collections).toBeDefined();
    const built = done!.collections as Awaited<ReturnType<ProjectionCatalog['customerProjections']>>;
    catalog.invalidate();
    expect(await catalog.customerProjections()).toEqual(active);
    expect(await projectionContents(db, built)).toEqual(live);
    for (const name of Object.values(built)) {
      expect(Object.values(active)).not.toContain(name);
      await db.collection(name).drop();
    }
  }, 600000);
});
