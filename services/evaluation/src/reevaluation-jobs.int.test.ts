import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import type { CustomerCommand, RiskMatrixActivated } from '@crs/contracts';
import { DurablePublisher, setUpMessaging, type Messaging } from '@crs/messaging';
import { Counter, createLogger, createMetricsRegistry } from '@crs/runtime';
import { ProjectionCatalog } from '@crs/store';
import { scratchMessagingSettings } from '@crs/testing';
import { REEVALUATION_JOBS, ReevaluationJobs, type ReevaluationJobsOptions } from './reevaluation-jobs';

/**
 * Re-evaluation jobs on the real broker, registry and store: read-model documents are written directly,
 * a job runs for an activation, and the commands topic must then hold one RequestReevaluation per customer
 * the matrix serves. A job another instance holds is left alone until its lease expires, and is then taken
 * over from its cursor.
 */
describe('ReevaluationJobs (real Kafka, registry and store)', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const logger = createLogger('reevaluation-it', 'silent');
  let client: MongoClient;
  let db: Db;
  let messaging: Messaging;
  let publisher: DurablePublisher;
  let published: Counter<'reason'>;

  const customer = (id: string, fields: Record<string, unknown> = {}) => ({
    _id: `REA:${id}`,
    businessUnit: 'REA',
    customerExtId: id,
    sourceOfRiskLevel: 'EVALUATE',
    simplified: false,
    status: 'ACTIVE',
    riskManagementCategory: 'IND',
    ...fields,
  });
  const docs = [
    customer('C-01'),
    customer('C-02', { riskManagementCategory: 'ORG' }), // not served by the matrix
    customer('C-03'),
    customer('C-04', { status: 'CLOSED' }), // not enumerated
    customer('C-05', { simplified: true }), // not enumerated
    customer('C-06', { sourceOfRiskLevel: 'IMPORT' }), // not enumerated
    customer('C-07'),
    customer('C-08'),
    { ...customer('C-09'), _id: 'REB:C-09', businessUnit: 'REB' }, // another business unit
  ];

  const activation = (eventId: string): RiskMatrixActivated => ({
    eventId,
    type: 'RiskMatrixActivated',
    matrixId: 'reevaluation-it',
    version: 2,
    businessUnit: 'REA',
    activatedAt: new Date().toISOString(),
    matrix: {},
  });

  const jobs = (overrides: Partial<ReevaluationJobsOptions> = {}) =>
    new ReevaluationJobs({
      db,
      catalog: new ProjectionCatalog(db),
      publisher,
      commandsTopic: messaging.topics.customerCommands,
      logger,
      published,
      chunkSize: 2,
      pauseMs: 0,
      leaseMs: 30_000,
      instanceId: 'a',
      clock: () => new Date(),
      isCurrent: () => true,
      serves: (_a, c) => c.riskManagementCategory === 'IND',
      ...overrides,
    });

  async function runJob(a: RiskMatrixActivated, overrides: Partial<ReevaluationJobsOptions> = {}) {
    const j = jobs(overrides);
    j.enqueue(a);
    await j.idle();
  }

  async function commandsOnTopic(): Promise<CustomerCommand[]> {
    const topic = messaging.topics.customerCommands;
    const admin = messaging.kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
    const expectedCount = offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
    if (expectedCount === 0) return [];
    const consumer = messaging.kafka.consumer({ groupId: `reevaluation-it-${randomUUID()}` });
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
  const streamsOf = async (activationId: string) =>
    (await commandsOnTopic())
      .filter((c) => c.causationId === activationId)
      .map((c) => c.streamId)
      .sort();
  const job = (id: string) => db.collection(REEVALUATION_JOBS).findOne({ _id: id as never });

  beforeAll(async () => {
    published = new Counter({
      name: 'reevaluation_requests_total',
      help: 'test',
      labelNames: ['reason'],
      registers: [createMetricsRegistry('reevaluation-it')],
    });
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_reevaluation_${randomUUID().slice(0, 8)}`);
    await db.collection('customers').insertMany(docs as never[]);
    messaging = await setUpMessaging(
      scratchMessagingSettings(`crs-it-reev-${run}.`),
      'reevaluation-it',
      logger,
    );
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
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(`crs-it-reev-${run}.`));
      await admin.deleteTopics({ topics }).catch(() => undefined);
      await admin.disconnect();
    }
  });

  it('asks, in chunks, for the re-evaluation of every customer the matrix serves, once', async () => {
    const a = activation('act-1');
    await runJob(a);
    const commands = (await commandsOnTopic()).filter((c) => c.causationId === 'act-1');
    expect(commands.map((c) => c.streamId).sort()).toEqual(['REA:C-01', 'REA:C-03', 'REA:C-07', 'REA:C-08']);
    expect(commands[0]).toMatchObject({
      type: 'RequestReevaluation',
      commandId: `matrix:act-1:${commands[0]!.streamId}`,
      correlationId: 'matrix-reevaluation-it-v2',
      issuedBy: 'evaluation',
      data: { reason: 'MATRIX_ACTIVATED' },
    });
    expect(await job('act-1')).toMatchObject({
      status: 'DONE',
      cursor: 'REA:C-08',
      scanned: 5,
      published: 4,
      owner: 'a',
    });
    // A finished job is not run again.
    await runJob(a, { instanceId: 'b' });
    expect(await streamsOf('act-1')).toHaveLength(4);
  });

  it('leaves a job another instance holds alone, and takes it over from its cursor once the lease expired', async () => {
    const now = Date.now();
    await db.collection(REEVALUATION_JOBS).insertOne({
      _id: 'act-2' as never,
      matrixId: 'reevaluation-it',
      version: 2,
      businessUnit: 'REA',
      status: 'RUNNING',
      cursor: 'REA:C-03',
      scanned: 3,
      published: 2,
      owner: 'b',
      leaseUntil: new Date(now + 60_000),
      createdAt: new Date(now),
      updatedAt: new Date(now),
    });
    await runJob(activation('act-2'));
    expect(await streamsOf('act-2')).toEqual([]);
    expect(await job('act-2')).toMatchObject({ owner: 'b', cursor: 'REA:C-03', status: 'RUNNING' });

    await runJob(activation('act-2'), { clock: () => new Date(Date.now() + 120_000) });
    expect(await streamsOf('act-2')).toEqual(['REA:C-07', 'REA:C-08']);
    expect(await job('act-2')).toMatchObject({ owner: 'a', status: 'DONE', scanned: 5, published: 4 });
  });

  it('stops at its next progress write when another instance took the job over, and leaves the cursor to it', async () => {
    // Instance a stalls past its lease after its first chunk; b takes the job over at that point.
    let chunks = 0;
    const stalling = {
      publish: async (messages: Parameters<DurablePublisher['publish']>[0]) => {
        chunks += 1;
        if (chunks === 2)
          await db
            .collection(REEVALUATION_JOBS)
            .updateOne(
              { _id: 'act-4' as never },
              { $set: { owner: 'b', leaseUntil: new Date(Date.now() + 60_000), cursor: 'REA:C-02' } },
            );
        return publisher.publish(messages);
      },
    };
    await runJob(activation('act-4'), { publisher: stalling });
    expect(chunks).toBe(2);
    // a's second progress write was refused: the job is b's, with b's cursor, still running.
    expect(await job('act-4')).toMatchObject({
      owner: 'b',
      cursor: 'REA:C-02',
      status: 'RUNNING',
      scanned: 2,
    });
  });

  it('stops a job a newer activation superseded', async () => {
    await runJob(activation('act-3'), { isCurrent: () => false });
    expect(await streamsOf('act-3')).toEqual([]);
    expect(await job('act-3')).toMatchObject({ status: 'SUPERSEDED', cursor: null, owner: 'a' });
  });
});
