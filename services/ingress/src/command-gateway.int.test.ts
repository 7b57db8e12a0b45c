import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient, type Db } from 'mongodb';
import { createLogger } from '@crs/runtime';
import {
  BrokerUnavailableError,
  DurablePublisher,
  setUpMessaging,
  type Messaging,
  type OutgoingMessage,
} from '@crs/messaging';
import { OwnedCollections } from '@crs/store';
import { TcpProxy, mongoHosts, scratchMessagingSettings } from '@crs/testing';
import { CommandGateway, type CommandGatewayOptions, type PendingCommand } from './command-gateway';
import { PublishedReservations, type PublishedGroupDoc } from './reservations/publication-record';

/**
 * The communicationNumber reservation when the store fails while a request fails: on the real broker
 * and the real store, reached through a loopback proxy the test cuts. A reservation whose release
 * failed must not refuse the client's retry of a request we never acknowledged (with O001): it is
 * released in the background once the store answers, or at once by the retry itself.
 */
describe('CommandGateway: reservations of failed requests', () => {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const logger = createLogger('gateway-it', 'fatal');
  // One host: the local stack's socket (decision 0082) or a container's port.
  const proxy = new TcpProxy(mongoHosts(process.env.MONGODB_URI!)[0]!);
  let direct: MongoClient;
  let proxied: MongoClient;
  let directDb: Db;
  let proxiedDb: Db;
  /** Reservation inserts as the store saw them: documents per `insert` command. */
  const inserts: number[] = [];
  /** Publication record inserts as the store saw them: documents per `insert` command. */
  const recordInserts: number[] = [];
  let messaging: Messaging;
  const publishers: DurablePublisher[] = [];
  const gateways: CommandGateway[] = [];

  const item = (communicationNumber: string): PendingCommand => ({
    type: 'ImportSimplifiedCustomer',
    businessUnit: 'DEMO',
    customerExtId: `C-${communicationNumber}`,
    communicationNumber,
    data: {
      customer: {
        communicationNumber,
        businessUnit: 'DEMO',
        customerExtId: `C-${communicationNumber}`,
        entityType: 'INDIVIDUAL',
        firstName: 'Test',
        lastName: 'Person',
      },
    },
    issuedBy: 'gateway-it',
  });

  /** A gateway on the proxied store, publishing to `topic` (a topic that does not exist makes publishing fail). */
  async function gateway(
    topic: string,
    releaseRetryMs: number,
    options: CommandGatewayOptions & { publisher?: DurablePublisher } = {},
  ): Promise<CommandGateway> {
    // A publish to a missing topic fails by the 2 s ack timeout; kafkajs keeps retrying behind it, so
    // its retries are bounded (about 3 s) and afterAll waits them out.
    const kafka = topic.endsWith('.missing')
      ? new Kafka({
          clientId: 'gateway-it',
          brokers: process.env.KAFKA_BROKERS!.split(','),
          retry: { retries: 4, initialRetryTime: 400, maxRetryTime: 1000, factor: 0 },
          logLevel: logLevel.NOTHING,
        })
      : messaging.kafka;
    const { publisher = new DurablePublisher(kafka, messaging.serde, 2000), ...rest } = options;
    publishers.push(publisher);
    const g = new CommandGateway(proxiedDb, publisher, topic, () => new Date(), {
      releaseRetryMs,
      releaseRetryMaxMs: releaseRetryMs,
      ...rest,
    });
    gateways.push(g);
    return g;
  }

  const reservation = (communicationNumber: string) =>
    directDb
      .collection<{ _id: string; commandId: string }>(OwnedCollections.reservations)
      .findOne({ _id: CommandGateway.key('DEMO', communicationNumber) });

  /** Whether the reservation's group is recorded as published, with this reservation acknowledged. */
  const recorded = async (communicationNumber: string, db: Db = directDb) => {
    const key = CommandGateway.key('DEMO', communicationNumber);
    const held = await db
      .collection<{ _id: string; group?: string }>(OwnedCollections.reservations)
      .findOne({ _id: key });
    if (!held?.group) return false;
    const group = await db.collection<PublishedGroupDoc>(PublishedReservations).findOne({ _id: held.group });
    return group !== null && !group.unpublished.includes(key);
  };

  /** Sets a reservation's age back, as if its attempt were long gone. */
  const age = (communicationNumber: string, db: Db = directDb) =>
    db
      .collection<{ _id: string; reservedAt: Date }>(OwnedCollections.reservations)
      .updateOne(
        { _id: CommandGateway.key('DEMO', communicationNumber) },
        { $set: { reservedAt: new Date(Date.now() - 3600_000) } },
      );

  /** What an ingress killed between reserving and publishing leaves: an old reservation, never recorded. */
  const leftByDeadAttempt = (communicationNumber: string, db: Db = directDb) =>
    db.collection(OwnedCollections.reservations).insertOne({
      _id: CommandGateway.key('DEMO', communicationNumber) as never,
      businessUnit: 'DEMO',
      communicationNumber,
      customerExtId: `C-${communicationNumber}`,
      reservedAt: new Date(Date.now() - 3600_000),
      commandId: randomUUID(),
      // Its group's record was never written: the attempt died before Kafka acknowledged it.
      group: randomUUID(),
    });

  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function commandsInLog(): Promise<number> {
    const admin = messaging.kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(messaging.topics.customerCommands);
      return offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
    } finally {
      await admin.disconnect();
    }
  }

  /** Submits to a failing topic and cuts the store once the reservation is in, so the release fails. */
  async function failWithStoreDown(g: CommandGateway, communicationNumber: string): Promise<void> {
    const submitted = g.submit([item(communicationNumber)]);
    await until('the reservation', async () => (await reservation(communicationNumber)) !== null);
    proxy.cut();
    await expect(submitted).rejects.toBeInstanceOf(BrokerUnavailableError);
  }

  beforeAll(async () => {
    const address = await proxy.start();
    const dbName = `crs_it_gateway_${randomUUID().slice(0, 8)}`;
    direct = await new MongoClient(process.env.MONGODB_URI!).connect();
    proxied = await new MongoClient(`mongodb://${address}/`, {
      serverSelectionTimeoutMS: 1500,
      directConnection: true,
      monitorCommands: true,
    }).connect();
    proxied.on('commandStarted', (e) => {
      if (e.commandName === 'insert' && e.command.insert === OwnedCollections.reservations)
        inserts.push((e.command.documents as unknown[]).length);
      if (e.commandName === 'insert' && e.command.insert === PublishedReservations)
        recordInserts.push((e.command.documents as unknown[]).length);
    });
    directDb = direct.db(dbName);
    proxiedDb = proxied.db(dbName);
    messaging = await setUpMessaging(scratchMessagingSettings(`crs-it-gw-${run}.`), 'gateway-it', logger);
  });
  afterEach(() => proxy.restore());
  afterAll(async () => {
    for (const g of gateways) await g.close();
    for (const p of publishers) await p.disconnect().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 4000)); // the bounded kafkajs retries of the failed publishes
    await directDb.dropDatabase();
    await proxied.close();
    await direct.close();
    await proxy.stop();
    const admin = messaging.kafka.admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`crs-it-gw-${run}.`));
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  });

  it('releases the reservation in the background once the store answers; the retry is then accepted, and a second use is refused', async () => {
    const failing = await gateway(`crs-it-gw-${run}.missing`, 300);
    await failWithStoreDown(failing, 'comm-bg');
    expect(failing.unreleasedCount()).toBe(1);
    expect(await reservation('comm-bg')).not.toBeNull();

    proxy.restore();
    await until('the background release', async () => (await reservation('comm-bg')) === null);
    await until('the retry list to empty', async () => failing.unreleasedCount() === 0);

    const working = await gateway(messaging.topics.customerCommands, 300);
    expect(await working.submit([item('comm-bg')])).toEqual([{ ok: true }]);
    expect(await working.submit([item('comm-bg')])).toEqual([{ ok: false, reason: 'USED' }]);
    expect(await working.isUsed('DEMO', 'comm-bg', 'C-comm-bg')).toBe(true);

    const offsets = await (async () => {
      const admin = messaging.kafka.admin();
      await admin.connect();
      try {
        return await admin.fetchTopicOffsets(messaging.topics.customerCommands);
      } finally {
        await admin.disconnect();
      }
    })();
    // Exactly one command was published: the failed attempt's never reached the broker.
    expect(offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0)).toBe(1);
  });

  it('a retry meeting a reservation still waiting for release releases it at once and proceeds (no O001)', async () => {
    // The background retry is far off: only the retry itself can free the key.
    const g = await gateway(`crs-it-gw-${run}.missing`, 600000);
    await failWithStoreDown(g, 'comm-now');
    proxy.restore();
    expect(await reservation('comm-now')).not.toBeNull();
    // The batch pre-check does not count a reservation of an attempt that was never acknowledged.
    expect(await g.isUsed('DEMO', 'comm-now', 'C-comm-now')).toBe(false);

    // The retry gets past the reservation to the broker (which still fails here: a 503 for the client, not a 400).
    await expect(g.submit([item('comm-now')])).rejects.toBeInstanceOf(BrokerUnavailableError);
    expect(g.unreleasedCount()).toBe(0);
    // ...and its own reservation was released as usual, so nothing is left behind.
    expect(await reservation('comm-now')).toBeNull();
  });

  it("a client retrying through the outage: the first failed attempt's reservation is still released, not forgotten behind the second", async () => {
    // Found by the long fault suite's database outage: ten imports refused with O001 after their retries.
    const g = await gateway(`crs-it-gw-${run}.missing`, 600000);
    await failWithStoreDown(g, 'comm-twice');
    const first = (await reservation('comm-twice'))?.commandId;
    expect(first).toBeDefined();
    // The client retries while the store is still unreachable: that attempt fails too, its release too.
    await expect(g.submit([item('comm-twice')])).rejects.toThrow();
    expect(g.unreleasedCount()).toBe(2);
    proxy.restore();
    expect((await reservation('comm-twice'))?.commandId).toBe(first);

    // The next retry releases the first attempt's reservation and gets to the broker (a 503 here, not O001).
    await expect(g.submit([item('comm-twice')])).rejects.toBeInstanceOf(BrokerUnavailableError);
    expect(g.unreleasedCount()).toBe(0);
    expect(await reservation('comm-twice')).toBeNull();
  });

  it('never releases a reservation that another attempt holds', async () => {
    const g = await gateway(`crs-it-gw-${run}.missing`, 300);
    await failWithStoreDown(g, 'comm-taken');
    // While the store was unreachable for this process, someone else took the key over (a restarted
    // replica released the stale reservation and reserved it for its own request).
    const reservations = directDb.collection<{ _id: string; commandId: string }>(
      OwnedCollections.reservations,
    );
    const key = CommandGateway.key('DEMO', 'comm-taken');
    await reservations.deleteOne({ _id: key });
    await reservations.insertOne({ _id: key, commandId: 'another-attempt' });
    proxy.restore();
    await until('the retry list to empty', async () => g.unreleasedCount() === 0);
    expect((await reservation('comm-taken'))?.commandId).toBe('another-attempt');
    expect(await g.isUsed('DEMO', 'comm-taken', 'C-comm-taken')).toBe(true);
  });
  it('a batch with duplicates inside it and against existing reservations gets O001 exactly on those items', async () => {
    const g = await gateway(messaging.topics.customerCommands, 300);
    expect(await g.submit([item('dup-a')])).toEqual([{ ok: true }]);
    const before = await commandsInLog();
    inserts.length = 0;
    const outcomes = await g.submit([
      item('dup-b'),
      item('dup-a'), // reserved by the earlier request
      item('dup-c'),
      item('dup-b'), // twice in this batch
      item('dup-d'),
    ]);
    expect(outcomes).toEqual([
      { ok: true },
      { ok: false, reason: 'USED' },
      { ok: true },
      { ok: false, reason: 'USED' },
      { ok: true },
    ]);
    expect(inserts).toEqual([5]); // one insertMany for the batch
    expect(await commandsInLog()).toBe(before + 3);
    for (const n of ['dup-b', 'dup-c', 'dup-d']) expect(await reservation(n)).not.toBeNull();
    // validate-batch-customers asks for many numbers at once: the taken ones (also twice), the free ones.
    const ask = (n: string) => ({ businessUnit: 'DEMO', communicationNumber: n, customerExtId: `C-${n}` });
    expect(
      await g.usedAmong([ask('dup-a'), ask('free-1'), ask('dup-c'), ask('dup-a'), ask('free-2')]),
    ).toEqual([true, false, true, true, false]);
    expect(await g.usedAmong([])).toEqual([]);
  });

  it('concurrent single requests share one insert and each gets its own answer', async () => {
    const g = await gateway(messaging.topics.customerCommands, 300);
    expect(await g.submit([item('conc-taken')])).toEqual([{ ok: true }]);
    const before = await commandsInLog();
    inserts.length = 0;
    const numbers = ['conc-1', 'conc-2', 'conc-taken', 'conc-3', 'conc-2', 'conc-4'];
    const outcomes = await Promise.all(numbers.map((n) => g.submit([item(n)])));
    expect(outcomes).toEqual([
      [{ ok: true }],
      [{ ok: true }],
      [{ ok: false, reason: 'USED' }],
      [{ ok: true }],
      [{ ok: false, reason: 'USED' }], // the first request with conc-2 has it
      [{ ok: true }],
    ]);
    expect(inserts).toEqual([6]);
    expect(await commandsInLog()).toBe(before + 4);
  });

  it('a failed publish releases exactly the reservations of its group and every caller gets the failure', async () => {
    const working = await gateway(messaging.topics.customerCommands, 300);
    expect(await working.submit([item('grp-held')])).toEqual([{ ok: true }]);
    const heldBy = (await reservation('grp-held'))?.commandId;
    const failing = await gateway(`crs-it-gw-${run}.missing`, 300);
    inserts.length = 0;
    const results = await Promise.allSettled([
      failing.submit([item('grp-1')]),
      failing.submit([item('grp-2'), item('grp-3')]),
      failing.submit([item('grp-held')]), // nothing of its own to publish: O001, no failure
      failing.submit([item('grp-4'), item('grp-held')]),
    ]);
    expect(inserts).toEqual([6]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'rejected']);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(BrokerUnavailableError);
    }
    expect(results[2]).toEqual({ status: 'fulfilled', value: [{ ok: false, reason: 'USED' }] });
    for (const n of ['grp-1', 'grp-2', 'grp-3', 'grp-4']) expect(await reservation(n)).toBeNull();
    // The reservation another request holds stays, and the retry of a failed one is accepted.
    expect((await reservation('grp-held'))?.commandId).toBe(heldBy);
    expect(failing.unreleasedCount()).toBe(0);
    expect(await working.submit([item('grp-2'), item('grp-3')])).toEqual([{ ok: true }, { ok: true }]);
  });

  describe('the publication record: which reservations Kafka acknowledged (decision 0026)', () => {
    const ORPHAN_AFTER_MS = 60_000;

    it('an acknowledged request is recorded (known at once, written without holding its answer), and its reservation is never an orphan', async () => {
      const g = await gateway(messaging.topics.customerCommands, 300, { orphanAfterMs: ORPHAN_AFTER_MS });
      expect(await g.submit([item('rec-used')])).toEqual([{ ok: true }]);
      await until('the record of rec-used', () => recorded('rec-used'));
      await age('rec-used');
      // However old, the same customer's retry is refused: its command is in the log.
      expect(await g.isUsed('DEMO', 'rec-used', 'C-rec-used')).toBe(true);
      expect(await g.submit([item('rec-used')])).toEqual([{ ok: false, reason: 'USED' }]);
    });

    it('an old reservation never recorded is reclaimed by a retry of its customer only', async () => {
      const reclaimed: string[] = [];
      const g = await gateway(messaging.topics.customerCommands, 300, {
        orphanAfterMs: ORPHAN_AFTER_MS,
        onReclaimed: (key) => reclaimed.push(key),
      });
      await leftByDeadAttempt('rec-lost');
      const before = await commandsInLog();
      const otherCustomer = { ...item('rec-lost'), customerExtId: 'C-someone-else' };
      expect(await g.submit([otherCustomer])).toEqual([{ ok: false, reason: 'USED' }]);
      expect(await g.isUsed('DEMO', 'rec-lost', 'C-rec-lost')).toBe(false);
      expect(await g.submit([item('rec-lost')])).toEqual([{ ok: true }]);
      expect(reclaimed).toEqual([CommandGateway.key('DEMO', 'rec-lost')]);
      expect(await commandsInLog()).toBe(before + 1);
      await until('the record of rec-lost', () => recorded('rec-lost'));
      // A young reservation never recorded (an attempt that may still be publishing) stands.
      await directDb
        .collection(OwnedCollections.reservations)
        .updateOne(
          { _id: CommandGateway.key('DEMO', 'rec-lost') as never },
          { $set: { reservedAt: new Date() } },
        );
      const held = await directDb
        .collection<{ _id: string; group: string }>(OwnedCollections.reservations)
        .findOne({ _id: CommandGateway.key('DEMO', 'rec-lost') });
      await directDb.collection(PublishedReservations).deleteOne({ _id: held!.group as never });
      expect(await g.submit([item('rec-lost')])).toEqual([{ ok: false, reason: 'USED' }]);
    });

    it('a record that fails after the acknowledgement does not fail the request: it is written in the background', async () => {
      /** Acknowledged by Kafka, then the store goes away before the record is written. */
      class CutAfterAck extends DurablePublisher {
        override async publish(messages: OutgoingMessage[]): Promise<void> {
          await super.publish(messages);
          proxy.cut();
        }
      }
      const failures: number[] = [];
      const g = await gateway(messaging.topics.customerCommands, 300, {
        publisher: new CutAfterAck(messaging.kafka, messaging.serde, 2000),
        orphanAfterMs: ORPHAN_AFTER_MS,
        onRecordFailed: (_err, pending) => failures.push(pending),
      });
      expect(await g.submit([item('rec-late')])).toEqual([{ ok: true }]);
      await until('the record to fail', async () => failures.length > 0);
      expect(failures).toEqual([1]);
      expect(g.unrecordedCount()).toBe(1);
      expect(await recorded('rec-late')).toBe(false);
      proxy.restore();
      await age('rec-late');
      // Until the record is written, this process knows the command was acknowledged.
      expect(await g.isUsed('DEMO', 'rec-late', 'C-rec-late')).toBe(true);
      await until('the background record', () => recorded('rec-late'));
      await until('the pending records to empty', async () => g.unrecordedCount() === 0);
    });

    it('records the groups acknowledged within its linger with one write (nobody waits for it)', async () => {
      const g = await gateway(messaging.topics.customerCommands, 300, {
        orphanAfterMs: ORPHAN_AFTER_MS,
        recordLingerMs: 1000,
      });
      recordInserts.length = 0;
      // One request after the other: five groups, each answered before the next is submitted.
      for (const n of [1, 2, 3, 4, 5]) expect(await g.submit([item(`linger-${n}`)])).toEqual([{ ok: true }]);
      // Known at once in this process, while the record still lingers.
      expect(await g.isUsed('DEMO', 'linger-1', 'C-linger-1')).toBe(true);
      await until('the records', async () => (await recorded('linger-1')) && (await recorded('linger-5')));
      expect(recordInserts).toEqual([5]);
    });

    it('a reservation made before the record existed (no group) counts as published, however old', async () => {
      const g = await gateway(messaging.topics.customerCommands, 300, { orphanAfterMs: ORPHAN_AFTER_MS });
      await directDb.collection(OwnedCollections.reservations).insertOne({
        _id: CommandGateway.key('DEMO', 'early-1') as never,
        businessUnit: 'DEMO',
        communicationNumber: 'early-1',
        customerExtId: 'C-early-1',
        reservedAt: new Date(Date.now() - 3600_000),
        commandId: randomUUID(),
      });
      expect(await g.isUsed('DEMO', 'early-1', 'C-early-1')).toBe(true);
      expect(await g.submit([item('early-1')])).toEqual([{ ok: false, reason: 'USED' }]);
    });

    it('a batch is recorded with one document for its group; a request of the group whose publish failed is listed as unpublished', async () => {
      const g = await gateway(messaging.topics.customerCommands, 300, { orphanAfterMs: ORPHAN_AFTER_MS });
      const numbers = Array.from({ length: 50 }, (_, i) => `grp-rec-${i}`);
      const before = await directDb.collection(PublishedReservations).countDocuments();
      expect(await g.submit(numbers.map((n) => item(n)))).toEqual(numbers.map(() => ({ ok: true })));
      await until(
        'the group record',
        async () => (await directDb.collection(PublishedReservations).countDocuments()) === before + 1,
      );
      for (const n of [numbers[0]!, numbers[49]!]) expect(await recorded(n)).toBe(true);

      // Two requests in one group: one publishes, the other's publish fails.
      class FailsForOne extends DurablePublisher {
        override async publish(messages: OutgoingMessage[]): Promise<void> {
          if (messages.some((m) => (m.value as { correlationId?: string }).correlationId === 'grp-bad'))
            throw new BrokerUnavailableError(new Error('refused for the test'));
          await super.publish(messages);
        }
      }
      const mixed = await gateway(messaging.topics.customerCommands, 300, {
        publisher: new FailsForOne(messaging.kafka, messaging.serde, 2000),
        orphanAfterMs: ORPHAN_AFTER_MS,
      });
      const [good, bad] = await Promise.allSettled([
        mixed.submit([item('grp-good')]),
        mixed.submit([item('grp-bad')]),
      ]);
      expect(good).toEqual({ status: 'fulfilled', value: [{ ok: true }] });
      expect(bad.status).toBe('rejected');
      await until('the record of grp-good', () => recorded('grp-good'));
      // The group's record names the failed request's key: had its release failed too, the reservation
      // left behind would still be an orphan to reclaim.
      const held = await directDb
        .collection<{ _id: string; group: string }>(OwnedCollections.reservations)
        .findOne({ _id: CommandGateway.key('DEMO', 'grp-good') });
      const group = await directDb
        .collection<PublishedGroupDoc>(PublishedReservations)
        .findOne({ _id: held!.group });
      expect(group).toMatchObject({ acknowledged: 1, unpublished: [CommandGateway.key('DEMO', 'grp-bad')] });
    });
  });
});
