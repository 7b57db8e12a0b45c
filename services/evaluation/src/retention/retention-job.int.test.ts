import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import type { CustomerCommand } from '@crs/contracts';
import { DurablePublisher, setUpMessaging, type Messaging } from '@crs/messaging';
import { parseRetentionPolicy } from '@crs/privacy';
import { createLogger, createMetricsRegistry, type Registry } from '@crs/runtime';
import { ProjectionCatalog } from '@crs/store';
import { scratchMessagingSettings } from '@crs/testing';
import {
  RETENTION_RUNS,
  RetentionJob,
  type RetentionJobOptions,
  type RetentionRunDoc,
} from './retention-job';
import { retentionMetrics } from './retention-metrics';

/**
 * The retention job on the real broker, registry and store: read-model documents are written directly
 * (no decider or projector runs), the job runs in bounded starts, and the commands topic must then hold
 * exactly one ErasePersonalData per customer past its retention period, none twice across the starts.
 */
describe('RetentionJob (real Kafka, registry and store)', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  // Level fatal: only the audit events (their own level) reach the stream, which the test reads.
  const logged: string[] = [];
  const logger = createLogger('retention-it', 'fatal', { write: (line: string) => void logged.push(line) });
  const policy = parseRetentionPolicy(5, 'RTB:10');
  let client: MongoClient;
  let db: Db;
  let messaging: Messaging;
  let publisher: DurablePublisher;
  let registry: Registry;

  const yearsAgo = (years: number, days = 0): Date => {
    const d = new Date();
    d.setUTCFullYear(d.getUTCFullYear() - years);
    d.setUTCDate(d.getUTCDate() - days);
    return d;
  };
  const day = (d: Date) => d.toISOString().slice(0, 10);

  interface Fields {
    status?: string | null;
    closingDate?: string;
    statusChangedAt?: string;
    simplified?: boolean;
    personalDataErased?: boolean;
    updatedAt?: string;
  }
  const customer = (businessUnit: string, customerExtId: string, fields: Fields) => ({
    _id: `${businessUnit}:${customerExtId}`,
    businessUnit,
    customerExtId,
    // The record itself is never read by the job; a name here must not reach a command or a log.
    data: { firstName: 'Ann', lastName: 'Example' },
    simplified: false,
    personalDataErased: false,
    updatedAt: yearsAgo(0, 1).toISOString(),
    ...fields,
  });
  const docs = [
    customer('RTA', 'C-01', { status: 'CLOSED', closingDate: day(yearsAgo(6)) }), // erased
    customer('RTA', 'C-02', { status: 'CLOSED', closingDate: day(yearsAgo(1)) }), // held
    customer('RTA', 'C-03', { status: 'ACTIVE' }), // skipped: open
    customer('RTA', 'C-04', {
      status: 'CLOSED',
      closingDate: day(yearsAgo(7)),
      personalDataErased: true,
    }), // skipped: erased
    customer('RTA', 'C-05', { status: 'REJECTED', statusChangedAt: yearsAgo(8).toISOString() }), // erased
    customer('RTA', 'C-07', { simplified: true, status: null, updatedAt: yearsAgo(7).toISOString() }), // erased
    customer('RTB', 'C-06', { status: 'CLOSED', closingDate: day(yearsAgo(6)) }), // held: RTB keeps 10 years
  ];
  const expected = ['RTA:C-01', 'RTA:C-05', 'RTA:C-07'];

  const job = (overrides: Partial<RetentionJobOptions> = {}) =>
    new RetentionJob({
      db,
      catalog: new ProjectionCatalog(db),
      publisher,
      commandsTopic: messaging.topics.customerCommands,
      logger,
      metrics: retentionMetrics(registry),
      policy,
      periodMs: 60 * 60 * 1000,
      maxCustomers: 2,
      chunkSize: 2,
      pauseMs: 0,
      leaseMs: 30_000,
      clock: () => new Date(),
      ...overrides,
    });

  const runs = () => db.collection<RetentionRunDoc>(RETENTION_RUNS);

  async function commandsOnTopic(): Promise<CustomerCommand[]> {
    const topic = messaging.topics.customerCommands;
    const admin = messaging.kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
    const expectedCount = offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
    if (expectedCount === 0) return [];
    const consumer = messaging.kafka.consumer({ groupId: `retention-it-${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const out: CustomerCommand[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error));
      void consumer.run({
        eachMessage: async ({ message }) => {
          out.push(await messaging.serde.decode<CustomerCommand>(message.value!));
          if (out.length === expectedCount) resolve();
        },
      });
    });
    await consumer.disconnect();
    return out;
  }

  async function metric(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
    const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
    return (m?.values as { value: number; labels: Record<string, string> }[] | undefined)?.find((v) =>
      Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    )?.value;
  }

  beforeAll(async () => {
    registry = createMetricsRegistry('retention-it');
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_retention_${randomUUID().slice(0, 8)}`);
    await db.collection('customers').insertMany(docs as never[]);
    messaging = await setUpMessaging(scratchMessagingSettings(`crs-it-ret-${run}.`), 'retention-it', logger);
    publisher = new DurablePublisher(messaging.kafka, messaging.serde, 10_000);
    await publisher.connect();
  });

  afterAll(async () => {
    await publisher?.disconnect().catch(() => undefined);
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
    if (messaging) {
      const admin = messaging.kafka.admin();
      await admin.connect();
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(`crs-it-ret-${run}.`));
      await admin.deleteTopics({ topics }).catch(() => undefined);
      await admin.disconnect();
    }
  });

  it('erases, in bounded starts that resume from their cursor, exactly the customers past their period', async () => {
    // A dry run counts and publishes nothing, and leaves no run behind.
    const dry = await job().runOnce({ dryRun: true, maxCustomers: 100 });
    expect(dry).toMatchObject({
      status: 'FINISHED',
      dryRun: true,
      runId: null,
      scanned: 7,
      erased: 3,
      held: 2,
      skipped: 2,
      erasedByBusinessUnit: { RTA: 3 },
    });
    expect(await commandsOnTopic()).toEqual([]);
    expect(await runs().countDocuments({ _id: { $ne: 'current' } })).toBe(0);
    // In a store where the job never ran, the first scheduled start is one period away.
    expect((await job().runOnce()).status).toBe('NOT_DUE');

    // First start: stops at maxCustomers (2) erasures, after RTA:C-05.
    const first = await job().runOnce({ force: true });
    expect(first).toMatchObject({
      status: 'LIMIT_REACHED',
      after: 'RTA:C-05',
      scanned: 5,
      erased: 2,
      held: 1,
      skipped: 2,
    });
    const runId = first.runId!;
    expect(await runs().findOne({ _id: runId })).toMatchObject({
      after: 'RTA:C-05',
      scanned: 5,
      erased: 2,
      held: 1,
      skipped: 2,
      finishedAt: null,
    });

    // A scheduled start within the period is not due; a forced one (another instance) resumes the run.
    expect((await job().runOnce()).status).toBe('NOT_DUE');
    const second = await job().runOnce({ force: true });
    expect(second).toMatchObject({
      status: 'FINISHED',
      runId,
      after: 'RTB:C-06',
      scanned: 2,
      erased: 1,
      held: 1,
      skipped: 0,
      run: { scanned: 7, erased: 3, held: 2, skipped: 2 },
    });
    const progress = await runs().findOne({ _id: runId });
    expect(progress).toMatchObject({ after: 'RTB:C-06', scanned: 7, erased: 3, held: 2, skipped: 2 });
    expect(progress!.finishedAt).toBeInstanceOf(Date);
    expect(progress!.startedAt).toBeInstanceOf(Date);
    expect(progress!.updatedAt.getTime()).toBeGreaterThanOrEqual(progress!.startedAt.getTime());

    const commands = await commandsOnTopic();
    expect(commands.map((c) => c.streamId).sort()).toEqual(expected);
    expect(new Set(commands.map((c) => c.commandId)).size).toBe(3);
    const byStream = new Map(commands.map((c) => [c.streamId, c]));
    expect(byStream.get('RTA:C-01')).toMatchObject({
      type: 'ErasePersonalData',
      commandId: `retention:${runId}:RTA:C-01`,
      correlationId: `retention-${runId}`,
      businessUnit: 'RTA',
      customerExtId: 'C-01',
      data: {
        reason: `retention period over (5 years after ${docs[0]!.closingDate as string})`,
        requestedBy: 'retention-job',
        override: false,
        retentionYears: 5,
        source: 'RETENTION_JOB',
      },
    });
    expect(byStream.get('RTA:C-05')!.data).toMatchObject({
      reason: `retention period over (5 years after ${docs[4]!.statusChangedAt as string})`,
    });
    expect(JSON.stringify(commands)).not.toContain('Example');

    expect(await metric('retention_customers_total', { outcome: 'erased' })).toBe(3);
    expect(await metric('retention_customers_total', { outcome: 'held' })).toBe(2);
    expect(await metric('retention_run_progress', { count: 'scanned' })).toBe(7);

    // One audit event per erasure asked for, with the job as subject and pseudonymous ids only.
    const audits = logged
      .map((l) => JSON.parse(l) as { log?: string; audit?: Record<string, unknown> })
      .filter((l) => l.log === 'audit' && l.audit?.runId === runId);
    expect(
      audits.map((a) => `${String(a.audit!.businessUnit)}:${String(a.audit!.customerExtId)}`).sort(),
    ).toEqual(expected);
    expect(audits[0]!.audit).toMatchObject({
      action: 'customer.personal-data-erase',
      subject: 'retention-job',
      outcome: 'ALLOWED',
    });
  });

  it('begins a new run after a finished one, and lets only one instance run it at a time', async () => {
    // What the projector does once the decider has recorded the erasures.
    await db
      .collection('customers')
      .updateMany({ _id: { $in: expected } } as never, { $set: { personalDataErased: true } });
    const finished = await runs().findOne({ finishedAt: { $ne: null } });

    const slow = job({ pauseMs: 400, instanceId: 'slow' });
    const running = slow.runOnce({ force: true });
    const deadline = Date.now() + 10_000;
    while ((await db.collection(RETENTION_RUNS).findOne({ _id: 'current' as never }))?.owner !== 'slow') {
      if (Date.now() > deadline) throw new Error('the slow instance never took the lease');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await job({ instanceId: 'other' }).runOnce({ force: true })).status).toBe('LEASE_HELD');

    const pass = await running;
    expect(pass).toMatchObject({ status: 'FINISHED', scanned: 7, erased: 0, held: 2, skipped: 5 });
    expect(pass.runId).not.toBe(finished!._id);
    expect(await runs().findOne({ _id: pass.runId! })).toMatchObject({ scanned: 7, erased: 0 });
    expect((await db.collection(RETENTION_RUNS).findOne({ _id: 'current' as never }))?.owner).toBeNull();
    // Nothing more was published.
    expect((await commandsOnTopic()).length).toBe(3);
  });

  it('repeats the same command after a failure between publishing and storing the cursor, and is due again at once', async () => {
    await db
      .collection('customers')
      .insertOne(customer('RTA', 'C-08', { status: 'CLOSED', closingDate: day(yearsAgo(9)) }) as never);
    const failing = {
      publish: async (messages: never[]) => {
        await publisher.publish(messages);
        throw new Error('crashed after publishing');
      },
    } as unknown as DurablePublisher;
    await expect(job({ publisher: failing }).runOnce({ force: true })).rejects.toThrow(
      'crashed after publishing',
    );
    expect(await metric('retention_run_failures_total')).toBe(1);
    const stopped = await runs().findOne({ finishedAt: null, _id: { $ne: 'current' } });
    // The chunks before the failing one were stored; the failing one (C-08, RTB:C-06) was not.
    expect(stopped).toMatchObject({ after: 'RTA:C-07', scanned: 6, erased: 0 });

    // Not forced: a failed run is due again at the next check, and resumes the same run.
    const retried = await job().runOnce();
    expect(retried).toMatchObject({
      status: 'FINISHED',
      runId: stopped!._id,
      scanned: 2,
      erased: 1,
      run: { scanned: 8, erased: 1, held: 2, skipped: 5 },
    });
    const again = (await commandsOnTopic()).filter((c) => c.streamId === 'RTA:C-08');
    expect(again.map((c) => c.commandId)).toEqual([
      `retention:${stopped!._id}:RTA:C-08`,
      `retention:${stopped!._id}:RTA:C-08`,
    ]);
  });
});
