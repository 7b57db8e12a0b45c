import { randomInt } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BSON, type Db } from 'mongodb';
import { ProjectionCatalog, readCustomerRecord } from '@crs/store';
import { ALL_SCOPES, ROOT, TestCluster, TestReceiver, eventually, localToken, uniqueId } from '@crs/testing';
import { individual } from './api-support';

const run = promisify(execFile);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers and documents are asserted field by field
type Loose = any;

/**
 * docs/privacy.md on the real stack: personal fields are encrypted before anything is published, the
 * read API decrypts them, an erasure is refused while a retention hold applies and goes ahead after it
 * (or with the override scope), and afterwards no plaintext of the customer is found in any topic, any
 * collection of the namespace, or any service log.
 */
describe('personal data: crypto-shredding end to end', () => {
  const NAMESPACE = 'e2e-privacy';
  const cluster = new TestCluster(NAMESPACE);
  const receiver = new TestReceiver();
  let db: Db;
  let token: string;
  let noOverride: string;
  let readOnly: string;

  beforeAll(async () => {
    const port = await receiver.start(0);
    cluster.routeCallbacks({ DEMO: `http://127.0.0.1:${port}/callbacks` });
    await cluster.start(['customer', 'projector', 'screening', 'callback', 'ingress']);
    db = await cluster.db();
    token = await localToken();
    noOverride = await localToken({ scopes: ALL_SCOPES.filter((s) => s !== 'customers:erase:override') });
    readOnly = await localToken({ scopes: ['customers:read'] });
  }, 180000);

  afterAll(async () => {
    await cluster.stop();
    await receiver.stop();
  });

  /** Values no other test uses, so finding one anywhere means this customer's data leaked. */
  const person = () => {
    const tag = randomInt(1e8, 1e9).toString(36);
    return {
      firstName: `Zelphine${tag}`,
      lastName: `Quorrington${tag}`,
      birthDate: `19${randomInt(30, 99)}-0${randomInt(1, 9)}-1${randomInt(0, 9)}`,
      nationalCode: `${randomInt(1e10, 9e10)}`,
      citizenshipCountry: 'LT',
    };
  };

  const record = (extId: string, pii: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    individual({
      requester: 'e2e-privacy',
      customerExtId: extId,
      initializeScreeningProcesses: ['SANCTIONS'],
      ...pii,
      ...extra,
    });

  /** Until the institution got the callback about the customer's erasure. */
  const erasureCalledBack = (extId: string) =>
    eventually(
      async () =>
        receiver.accepted.some(
          (c) =>
            c.headers['ce-type'] === 'com.crs.customer.personal-data.erased' &&
            c.headers['ce-subject'] === extId,
        ) || undefined,
      60000,
      'erasure callback',
    );

  /** Until the customer's data key is gone (the callback service or the projector deleted it). */
  const keyDeleted = async (extId: string) => {
    const keys = await cluster.ownDb('keys');
    await eventually(
      async () =>
        (await keys.collection('data_keys').findOne({ _id: `DEMO:${extId}` as never })) ? undefined : true,
      60000,
      'data key deleted',
    );
  };

  const post = (path: string, body: unknown) =>
    cluster.fetch(path, { method: 'POST', token, body: JSON.stringify(body) });
  const erase = (extId: string, auth: string, reason = 'data subject request #42') =>
    cluster.fetch(`/api/customers/DEMO/${extId}/personal-data?reason=${encodeURIComponent(reason)}`, {
      method: 'DELETE',
      token: auth,
    });
  const view = async (extId: string) => {
    const res = await cluster.fetch(`/api/customers/DEMO/${extId}`, { token });
    return { status: res.status, body: (await res.json()) as Record<string, Loose> };
  };

  const importAndSettle = async (body: Record<string, unknown>, until: (doc: Loose) => boolean) => {
    const res = await post('/core-ws-rest/customer', body);
    expect(res.status).toBe(200);
    const catalog = new ProjectionCatalog(db);
    return eventually(
      async () => {
        const c = await (
          await catalog.collection('customers')
        ).findOne({
          businessUnit: 'DEMO',
          customerExtId: body.customerExtId,
        });
        return c && until(c) ? c : undefined;
      },
      60000,
      'customer document',
    );
  };

  /** Every message of every topic of this namespace, as text (keys, values, headers). */
  const topicDump = async (): Promise<string> => {
    const kafka = new Kafka({
      clientId: 'e2e-privacy-dump',
      brokers: process.env.KAFKA_BROKERS!.split(','),
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${NAMESPACE}.`));
    const ends = new Map<string, number>();
    for (const t of topics) {
      const offsets = await admin.fetchTopicOffsets(t);
      ends.set(
        t,
        offsets.reduce((n, o) => n + Number(o.high) - Number(o.low), 0),
      );
    }
    await admin.disconnect();
    const total = [...ends.values()].reduce((a, b) => a + b, 0);
    const parts: string[] = [];
    const consumer = kafka.consumer({ groupId: uniqueId('dump') });
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });
    let seen = 0;
    let last = Date.now();
    // Offsets count transaction markers too, so `total` is an upper bound: the dump ends when every
    // offset is read, or when nothing more arrived for 5 s after the first message.
    await new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 60000;
      const timer = setInterval(() => {
        if (seen > 0 && Date.now() - last > 5000) done();
        else if (Date.now() > deadline) {
          clearInterval(timer);
          reject(new Error(`read ${seen} of at most ${total} messages`));
        }
      }, 250);
      const done = () => {
        clearInterval(timer);
        resolve();
      };
      void consumer.run({
        eachMessage: async ({ message }) => {
          parts.push(message.key?.toString('utf8') ?? '', message.value?.toString('utf8') ?? '');
          for (const v of Object.values(message.headers ?? {})) parts.push(String(v));
          seen += 1;
          last = Date.now();
          if (seen >= total) done();
        },
      });
    });
    expect(seen).toBeGreaterThan(10);
    await consumer.disconnect();
    expect(topics.length).toBeGreaterThan(3);
    return parts.join('\n');
  };

  /** Every document of every database of this namespace (read models and owners' databases). */
  const storeDump = async (): Promise<string> => {
    const parts: string[] = [];
    for (const database of [
      db,
      ...(await Promise.all(['ingress', 'callback', 'keys'].map((o) => cluster.ownDb(o as 'ingress')))),
    ]) {
      for (const { name } of await database.listCollections().toArray()) {
        for (const doc of await database.collection(name).find({}).toArray())
          parts.push(BSON.EJSON.stringify(doc));
      }
    }
    return parts.join('\n');
  };

  const logsOfNamespace = (): string =>
    ['customer', 'projector', 'screening', 'callback', 'ingress']
      .map((s) => join(ROOT, '.local', 'logs', `${NAMESPACE}-${s}.log`))
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');

  const expectNowhere = (text: string, pii: Record<string, string>, where: string) => {
    for (const [field, value] of Object.entries(pii)) {
      if (field === 'citizenshipCountry') continue;
      expect({ where, field, found: text.includes(value) }).toEqual({ where, field, found: false });
    }
  };

  it('encrypts before publishing, refuses an erasure under a retention hold, erases after it, and leaves no plaintext anywhere', async () => {
    const pii = person();
    const extId = uniqueId('priv');
    const doc = await importAndSettle(record(extId, pii), (c) => c.screening?.SANCTIONS !== undefined);

    // The read model holds ciphertext; the read API shows the plaintext to an authorised reader.
    // The record is one JSON string in the document (decision 0049), its personal values sealed in one
    // ciphertext with placeholders in their places (decision 0054).
    expect(typeof doc.data).toBe('string');
    const stored = readCustomerRecord(doc.data as string)!;
    expect(stored.firstName).toBe('crs:sealed:0');
    expect(stored.nationalCode).toBe('crs:sealed:0');
    expect(String(stored.sealedPersonalData)).toMatch(/^crs:enc:1:/);
    expect(stored.citizenshipCountry).toBe('LT');
    const before = await view(extId);
    expect(before.body.customer).toMatchObject({ firstName: pii.firstName, birthDate: pii.birthDate });
    expect(before.body.personalDataErased).toBe(false);

    // The relationship is open: a hold applies; a token without the erase scope is refused.
    expect((await erase(extId, readOnly)).status).toBe(403);
    const held = await erase(extId, noOverride);
    expect(held.status).toBe(409);
    expect(await held.json()).toMatchObject({ errorCode: 'RETENTION_HOLD' });
    const noReason = await cluster.fetch(`/api/customers/DEMO/${extId}/personal-data`, {
      method: 'DELETE',
      token: noOverride,
    });
    expect(noReason.status).toBe(400);
    expect(await noReason.json()).toMatchObject({ errors: [expect.objectContaining({ path: 'reason' })] });

    // Closed long enough ago (5-year default): the erasure goes ahead without an override.
    await importAndSettle(
      record(extId, pii, { action: 'UPDATE', customerStatus: 'CLOSED', closingDate: '2019-03-01' }),
      (c) => c.status === 'CLOSED',
    );
    const accepted = await erase(extId, noOverride);
    expect(accepted.status).toBe(202);
    const acceptedBody = (await accepted.json()) as Record<string, unknown>;
    expect(acceptedBody).toMatchObject({ resultType: 'REQUEST_ACCEPTED', override: false });

    const after = await eventually(
      async () => {
        const v = await view(extId);
        // The projector deletes the key first (values read as erased at once), then records the erasure
        // in the read model (personalDataErasedAt): wait for both.
        return v.body.personalDataErased === true &&
          v.body.customer.firstName === null &&
          v.body.personalDataErasedAt !== undefined
          ? v
          : undefined;
      },
      60000,
      'erased view',
    );
    expect(after.body.customer).toMatchObject({
      firstName: null,
      lastName: null,
      birthDate: null,
      nationalCode: null,
      citizenshipCountry: 'LT',
      customerExtId: extId,
    });
    expect(after.body.personalDataErasedAt).toEqual(expect.any(String));
    // The key is gone from the key store.
    await keyDeleted(extId);

    // Idempotent.
    const again = await erase(extId, noOverride);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ resultType: 'ALREADY_ERASED' });

    // The erasure is recorded (who, why), and the pull endpoint shows erased data as null.
    const pulled = await cluster.fetch(
      `/api/integration-services/v1/communications-events/${String(acceptedBody.communicationNumber)}`,
      { token },
    );
    expect(pulled.status).toBe(200);
    const pulledBody = (await pulled.json()) as { events: { type: string; data: Record<string, unknown> }[] };
    expect(pulledBody.events).toEqual([
      expect.objectContaining({
        type: 'com.crs.customer.personal-data.erased',
        data: expect.objectContaining({
          eventType: 'PersonalDataErased',
          erasedBy: 'e2e-test',
          reason: 'data subject request #42',
          override: false,
          source: 'API',
        }),
      }),
    ]);
    const screeningPull = await cluster.fetch(
      `/api/integration-services/v1/communications-events/${String(doc.lastCommunicationNumber)}`,
      { token },
    );
    const requested = (
      (await screeningPull.json()) as { events: { data: Record<string, Loose> }[] }
    ).events.find((e) => e.data.eventType === 'ScreeningRequested');
    expect(requested?.data).toMatchObject({ personalDataErased: true, customer: { firstName: null } });

    // The institution is called back about the erasure.
    await erasureCalledBack(extId);

    // No plaintext of the customer anywhere: topics (events, commands, snapshots), every collection, logs.
    const secret = {
      firstName: pii.firstName,
      lastName: pii.lastName,
      birthDate: pii.birthDate,
      nationalCode: pii.nationalCode,
    };
    expectNowhere(await topicDump(), secret, 'topics');
    expectNowhere(await storeDump(), secret, 'store');
    expectNowhere(logsOfNamespace(), secret, 'logs');
  });

  /**
   * A customer imported, screened and closed, and the callback that carried its record in plain (the
   * callback service decrypted it: the key is in its cache).
   */
  const closedWithPlainCallback = async (prefix: string) => {
    const pii = person();
    const extId = uniqueId(prefix);
    await importAndSettle(record(extId, pii), (c) => c.screening?.SANCTIONS !== undefined);
    await importAndSettle(
      record(extId, pii, { action: 'UPDATE', customerStatus: 'CLOSED', closingDate: '2019-03-01' }),
      (c) => c.status === 'CLOSED',
    );
    const plain = await eventually(
      async () =>
        receiver.accepted.find(
          (c) => c.headers['ce-subject'] === extId && c.body.toString('utf8').includes(pii.firstName),
        ),
      60000,
      'a callback with the record',
    );
    return { pii, extId, plain };
  };

  /** Asks for `sent` to be delivered again (until the callback service accepts) and checks what arrives. */
  const expectRedeliveredErased = async (
    sent: (typeof receiver.accepted)[number],
    pii: ReturnType<typeof person>,
  ) => {
    const seen = receiver.accepted.length;
    await eventually(
      async () => {
        const res = await cluster.fetch('/api/callbacks/redeliver', {
          method: 'POST',
          token,
          body: JSON.stringify({
            businessUnit: 'DEMO',
            communicationNumber: sent.headers['ce-source'],
            eventIds: [sent.headers['ce-id']],
          }),
        });
        return res.status === 202 || undefined;
      },
      60000,
      'redelivery accepted',
    );
    const again = await eventually(
      async () => receiver.accepted.slice(seen).find((c) => c.headers['ce-id'] === sent.headers['ce-id']),
      60000,
      'the redelivered callback',
    );
    const body = again.body.toString('utf8');
    expect(body).not.toContain(pii.firstName);
    expect(body).not.toContain(pii.nationalCode);
    expect(JSON.parse(body)).toMatchObject({ personalDataErased: true });
  };

  it('a callback sent again after the erasure carries no personal data, although the callback service had the key cached', async () => {
    const { pii, extId, plain } = await closedWithPlainCallback('priv-cb');
    expect((await erase(extId, noOverride)).status).toBe(202);
    // The callback service has consumed the erasure: it called the institution back about it.
    await erasureCalledBack(extId);
    await expectRedeliveredErased(plain, pii);
  });

  it('a callback sent again by a callback service restarted after the erasure, before the projector deleted the key, carries no personal data', async () => {
    const { pii, extId, plain } = await closedWithPlainCallback('priv-cb-restart');
    // The projector, which deletes an erased customer's key, is not running: only the callback service
    // sees the erasure. It calls the institution back about it, and is then restarted (its memory of
    // the erasure gone).
    await cluster.stopService('projector');
    try {
      expect((await erase(extId, noOverride)).status).toBe(202);
      await erasureCalledBack(extId);
      await cluster.stopService('callback');
      await cluster.startService('callback');
      await expectRedeliveredErased(plain, pii);
    } finally {
      await cluster.startService('projector');
    }
  });

  it('erases while a hold applies only with the override scope, and records the override', async () => {
    const pii = person();
    const extId = uniqueId('priv');
    await importAndSettle(record(extId, pii), (c) => c.status === 'ACTIVE');
    const res = await erase(extId, token, 'court order 2026/17');
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ override: true, holdUntil: null });
    const catalog = new ProjectionCatalog(db);
    const erased = await eventually(
      async () => {
        const c = await (
          await catalog.collection('customers')
        ).findOne({ businessUnit: 'DEMO', customerExtId: extId });
        return c?.personalDataErased === true ? c : undefined;
      },
      60000,
      'erased document',
    );
    expect(erased.erasure).toMatchObject({ erasedBy: 'e2e-test', override: true, source: 'API' });
    const v = await eventually(
      async () => {
        const x = await view(extId);
        return x.body.customer.lastName === null ? x : undefined;
      },
      60000,
      'erased view',
    );
    expect(v.body.personalDataErased).toBe(true);

    await keyDeleted(extId);
    // A new relationship after the erasure gets a new key and is readable again.
    const fresh = person();
    await importAndSettle(record(extId, fresh, { action: 'UPDATE' }), (c) => c.personalDataErased === false);
    const back = await view(extId);
    expect(back.body.customer).toMatchObject({ firstName: fresh.firstName });
    expect(back.body.personalDataErased).toBe(false);
  });

  it('a replay after an erasure rebuilds the erased state, and erases again a key a backup restored', async () => {
    const pii = person();
    const extId = uniqueId('priv');
    await importAndSettle(record(extId, pii), (c) => c.status === 'ACTIVE');
    const keys = await cluster.ownDb('keys');
    const backup = await keys.collection('data_keys').findOne({ _id: `DEMO:${extId}` as never });
    expect(backup).not.toBeNull();
    expect((await erase(extId, token)).status).toBe(202);
    await keyDeleted(extId);
    // Both services that delete the key on the erasure event have met it, so neither deletes the restored
    // key before the replay does: the callback service (it deletes, then calls back) and the projector (it
    // deletes, then writes the read model; up to 250 ms later since decision 0060).
    await erasureCalledBack(extId);
    await eventually(
      async () =>
        (await (
          await new ProjectionCatalog(db).collection('customers')
        ).findOne({
          businessUnit: 'DEMO',
          customerExtId: extId,
          personalDataErased: true,
        })) ?? undefined,
      60000,
      'erased read model',
    );
    // A restore of a data_keys backup taken before the erasure brings the key back...
    await keys.collection('data_keys').insertOne(backup!);
    // ...and the replay, from the log, erases it again and rebuilds the projections erased.
    const { stdout, stderr } = await run(
      process.execPath,
      [join(ROOT, 'services/projector/dist/cli/replay.js')],
      {
        env: {
          ...process.env,
          TOPIC_PREFIX: `${NAMESPACE}.`,
          MONGODB_DB: cluster.dbName,
          TOPIC_REPLICATION_FACTOR: '1',
        },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    expect(`${stdout}${stderr}`).toMatch(/"erasuresReapplied":1\b/);
    expect(await keys.collection('data_keys').findOne({ _id: `DEMO:${extId}` as never })).toBeNull();
    const catalog = new ProjectionCatalog(db);
    const rebuilt = await (
      await catalog.collection('customers')
    ).findOne({ businessUnit: 'DEMO', customerExtId: extId });
    expect(rebuilt).toMatchObject({
      personalDataErased: true,
      erasure: expect.objectContaining({ override: true }),
    });
    const v = await view(extId);
    expect(v.body).toMatchObject({
      personalDataErased: true,
      customer: { firstName: null, nationalCode: null },
    });
  }, 300000);

  it('answers 404 for an unknown customer and 403 for another business unit', async () => {
    expect((await erase(uniqueId('nobody'), token)).status).toBe(404);
    const other = await cluster.fetch('/api/customers/OTHER/x/personal-data?reason=r', {
      method: 'DELETE',
      token,
    });
    expect(other.status).toBe(403);
  });
});
