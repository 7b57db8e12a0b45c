import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { verifyCallback } from '@crs/auth';
import { OwnedCollections, ProjectionCatalog, communicationKey, readCustomerRecord } from '@crs/store';
import { TestCluster, TestReceiver, callbackJwks, eventually, localToken, uniqueId } from '@crs/testing';

/**
 * Black-box, through the real stack: HTTP -> ingress -> Kafka (commands) -> customer decider ->
 * Kafka (events) -> projector -> MongoDB, and -> callback service -> a real HTTP receiver.
 */
describe('customer flow end to end', () => {
  const cluster = new TestCluster('e2e-flow');
  const receiver = new TestReceiver();
  let db: Db;
  let token: string;

  beforeAll(async () => {
    const port = await receiver.start(0);
    cluster.routeCallbacks({ DEMO: `http://127.0.0.1:${port}/callbacks` });
    await cluster.start();
    db = await cluster.db();
    token = await localToken();
  });

  afterAll(async () => {
    await cluster.stop();
    await receiver.stop();
  });

  const post = (path: string, body: unknown, auth = token) =>
    cluster.fetch(path, { method: 'POST', token: auth, body: JSON.stringify(body) });
  const get = (path: string) => cluster.fetch(path, { token });

  const customer = (extId: string, comm: string, extra: Record<string, unknown> = {}) => ({
    communicationNumber: comm,
    requester: 'e2e',
    businessUnit: 'DEMO',
    action: 'CREATE',
    sourceOfRiskLevel: 'IMPORT',
    riskLevel: 'LOW',
    customerStatus: 'ACTIVE',
    riskManagementCategory: 'IND',
    entityType: 'INDIVIDUAL',
    customerExtId: extId,
    firstName: 'Ann',
    lastName: 'Example',
    citizenshipCountry: 'LT',
    ...extra,
  });

  it('stores the customer in MongoDB and calls the client back, signed, for each event', async () => {
    const extId = uniqueId('cust');
    const comm = uniqueId('comm');
    const res = await post('/core-ws-rest/customer', customer(extId, comm));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      resultType: 'REQUEST_ACCEPTED',
      communicationNumber: comm,
      customerExtId: extId,
    });

    const catalog = new ProjectionCatalog(db);
    const doc = await eventually(
      async () => {
        const c = await (
          await catalog.collection('customers')
        ).findOne({ businessUnit: 'DEMO', customerExtId: extId });
        return c?.riskLevel ? c : undefined;
      },
      60000,
      'customer document',
    );
    expect(doc).toMatchObject({
      status: 'ACTIVE',
      riskLevel: 'LOW',
      entityType: 'INDIVIDUAL',
      simplified: false,
    });
    // docs/privacy.md: the read model holds personal fields encrypted (the record as one JSON string:
    // decision 0049), sealed: placeholders in place and one ciphertext (decision 0054); the read API
    // decrypts them.
    expect(readCustomerRecord(doc.data as string)).toMatchObject({
      firstName: 'crs:sealed:0',
      lastName: 'crs:sealed:0',
      sealedPersonalData: expect.stringMatching(/^crs:enc:1:/),
      communicationNumber: comm,
    });
    const read = await get(`/api/customers/DEMO/${extId}`);
    expect((await read.json()) as unknown).toMatchObject({
      customer: { firstName: 'Ann', lastName: 'Example', communicationNumber: comm },
      personalDataErased: false,
    });

    const callbacks = await eventually(
      async () => {
        const got = receiver.acceptedFor(comm);
        return new Set(got.map((c) => c.headers['ce-id'])).size >= 3 ? got : undefined;
      },
      60000,
      'three callbacks',
    );
    // Each event is delivered once (the receiver would otherwise see a ce-id twice).
    expect(callbacks).toHaveLength(3);
    expect(callbacks.map((c) => c.headers['ce-type']).sort()).toEqual([
      'com.crs.customer.updated',
      'com.crs.customer.updated',
      'com.crs.risk-assessment.completed',
    ]);
    const jwks = await callbackJwks();
    for (const cb of callbacks) {
      expect(cb.headers['ce-specversion']).toBe('1.0');
      expect(cb.headers['ce-subject']).toBe(extId);
      await expect(
        verifyCallback({
          jwks: jwks as never,
          headers: cb.headers,
          body: cb.body,
          now: Math.floor(Date.now() / 1000),
        }),
      ).resolves.toBeUndefined();
    }
    const assessed = callbacks.find((c) => c.headers['ce-type'] === 'com.crs.risk-assessment.completed')!;
    expect(JSON.parse(assessed.body.toString())).toMatchObject({
      assessment: { source: 'IMPORT', level: 'LOW' },
    });
    // A tampered body does not verify.
    await expect(
      verifyCallback({
        jwks: jwks as never,
        headers: assessed.headers,
        body: Buffer.from('{}'),
        now: Math.floor(Date.now() / 1000),
      }),
    ).rejects.toThrow();
  });

  it('CREATE, UPDATE with status changes, a rejected UPDATE of a missing customer and IMPORT levels, via the read API', async () => {
    const extId = uniqueId('cust');
    const c1 = uniqueId('comm');
    const c2 = uniqueId('comm');
    const c3 = uniqueId('comm');
    const c4 = uniqueId('comm');
    const missing = uniqueId('missing');
    type Pulled = { events: { type: string; data: Record<string, unknown> }[]; errors: unknown[] };
    const pull = async (comm: string, count: number) =>
      eventually(
        async () => {
          const r = await get(`/api/integration-services/v1/communications-events/${comm}`);
          const body = (await r.json()) as Pulled;
          return r.status === 200 && body.events.length >= count ? body : undefined;
        },
        60000,
        `events of ${comm}`,
      );

    // CREATE with an imported level: visible as PENDING/MEDIUM right after creation, before anything else is sent.
    expect(
      (
        await post(
          '/core-ws-rest/customer',
          customer(extId, c1, { customerStatus: 'PENDING', riskLevel: 'MEDIUM' }),
        )
      ).status,
    ).toBe(200);
    const createdView = await eventually(
      async () => {
        const r = await get(`/api/customers/DEMO/${extId}`);
        const v = (await r.json()) as { riskLevel?: string };
        return r.status === 200 && v.riskLevel ? v : undefined;
      },
      60000,
      'created customer',
    );
    expect(createdView).toMatchObject({
      customerStatus: 'PENDING',
      riskLevel: 'MEDIUM',
      simplified: false,
      customer: { lastName: 'Example', communicationNumber: c1 },
      latestAssessment: { source: 'IMPORT', riskLevel: 'MEDIUM', communicationNumber: c1 },
    });
    const created = await pull(c1, 3);
    expect(created.errors).toEqual([]);
    expect(created.events.map((e) => e.data.eventType)).toEqual([
      'CustomerCreated',
      'CustomerStatusChanged',
      'RiskAssessed',
    ]);
    expect(created.events[0]!.data).toMatchObject({
      sourceOfRiskLevel: 'IMPORT',
      customerStatus: 'PENDING',
      simplified: false,
    });
    expect(created.events[1]!.data).toMatchObject({ from: null, to: 'PENDING' });
    expect(created.events[2]!.data).toMatchObject({
      assessment: { source: 'IMPORT', level: 'MEDIUM' },
      previousLevel: null,
    });

    expect(
      (
        await post(
          '/core-ws-rest/customer',
          customer(extId, c2, {
            action: 'UPDATE',
            customerStatus: 'ACTIVE',
            riskLevel: 'HIGH',
            lastName: 'Changed',
          }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await post(
          '/core-ws-rest/customer',
          customer(extId, c3, {
            action: 'UPDATE',
            customerStatus: 'CLOSED',
            closingDate: '2026-11-01',
            riskLevel: 'HIGH',
          }),
        )
      ).status,
    ).toBe(200);
    expect((await post('/core-ws-rest/customer', customer(missing, c4, { action: 'UPDATE' }))).status).toBe(
      200,
    );

    const view = await eventually(
      async () => {
        const r = await get(`/api/customers/DEMO/${extId}`);
        const v = (await r.json()) as { customerStatus?: string };
        return r.status === 200 && v.customerStatus === 'CLOSED' ? v : undefined;
      },
      60000,
      'closed customer',
    );
    expect(view).toMatchObject({
      customerStatus: 'CLOSED',
      riskLevel: 'HIGH',
      // UPDATE replaces the data as a whole: the last record sent no longer carries 'Changed'.
      customer: { lastName: 'Example', closingDate: '2026-11-01' },
      latestAssessment: { source: 'IMPORT', riskLevel: 'HIGH' },
    });

    const updated = (await (
      await get(`/api/integration-services/v1/communications-events/${c2}`)
    ).json()) as {
      events: { type: string; data: Record<string, unknown> }[];
    };
    expect(updated.events.map((e) => e.data.eventType)).toEqual([
      'CustomerUpdated',
      'CustomerStatusChanged',
      'RiskAssessed',
    ]);
    expect(updated.events[1]!.data).toMatchObject({ from: 'PENDING', to: 'ACTIVE' });

    // The CLOSE update: its status change carries the closingDate.
    const closed = await pull(c3, 3);
    expect(closed.errors).toEqual([]);
    expect(closed.events.map((e) => e.data.eventType)).toEqual([
      'CustomerUpdated',
      'CustomerStatusChanged',
      'RiskAssessed',
    ]);
    expect(closed.events[1]!.data).toMatchObject({ from: 'ACTIVE', to: 'CLOSED', closingDate: '2026-11-01' });
    // Its documents are keyed by the communication (decision 0065): the key's _id prefix holds them all.
    const stored = await (await new ProjectionCatalog(db).collection('communication_events'))
      .find({ communicationNumber: c3 })
      .toArray();
    expect(stored.length).toBeGreaterThan(0);
    for (const d of stored) expect(String(d._id).startsWith(communicationKey(c3))).toBe(true);
    expect(closed.events[2]!.data).toMatchObject({
      assessment: { source: 'IMPORT', level: 'HIGH' },
      previousLevel: 'HIGH',
    });

    const rejected = await eventually(
      async () => {
        const body = (await (
          await get(`/api/integration-services/v1/communications-events/${c4}`)
        ).json()) as {
          events: { type: string }[];
          errors: { code: string }[];
        };
        return body.events.length > 0 ? body : undefined;
      },
      60000,
      'rejection event',
    );
    expect(rejected.events.map((e) => e.type)).toEqual(['com.crs.customer.import.rejected']);
    expect(rejected.errors).toEqual([{ code: 'C004', description: expect.any(String) }]);
    expect((await get(`/api/customers/DEMO/${missing}`)).status).toBe(404);

    // The rejection reaches the client by callback too.
    await eventually(
      async () =>
        receiver.acceptedFor(c4).some((c) => c.headers['ce-type'] === 'com.crs.customer.import.rejected'),
      60000,
      'rejection callback',
    );
  });

  it('rejects a reused communicationNumber with O001', async () => {
    const comm = uniqueId('comm');
    expect((await post('/core-ws-rest/customer', customer(uniqueId('cust'), comm))).status).toBe(200);
    const again = await post('/core-ws-rest/customer', customer(uniqueId('cust'), comm));
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ resultType: 'REQUEST_REJECTED', errorCode: 'O001' });
  });

  it('a retry reclaims the reservation of an attempt that died before answering; a decided one keeps its O001', async () => {
    // The ingress keeps its reservations in a database of its own (docs/decisions/0017).
    const reservations = (await cluster.ownDb('ingress')).collection<{
      _id: string;
      commandId: string;
      reservedAt: Date;
    }>(OwnedCollections.reservations);
    const decided = (comm: string) =>
      eventually(
        async () => {
          const r = await get(`/api/integration-services/v1/communications-events/${comm}`);
          return r.status === 200 && ((await r.json()) as { events: unknown[] }).events.length > 0;
        },
        60000,
        `request ${comm} decided`,
      );
    // The _id of a reservation, as the runbook gives it: <length of businessUnit>:<businessUnit>:<communicationNumber>.
    const reservationId = (comm: string) => `4:DEMO:${comm}`;
    const hourAgo = new Date(Date.now() - 3600_000);
    // What an ingress killed between reserving and publishing leaves: a reservation whose command never
    // reached the log (older than RESERVATION_ORPHAN_AFTER_SEC, 15 minutes by default), in a group whose
    // publication record was never written (decision 0026).
    const orphanComm = uniqueId('comm');
    const orphanExtId = uniqueId('cust');
    await reservations.insertOne({
      _id: reservationId(orphanComm),
      businessUnit: 'DEMO',
      communicationNumber: orphanComm,
      customerExtId: orphanExtId,
      reservedAt: hourAgo,
      commandId: randomUUID(),
      group: randomUUID(),
    } as never);
    // Only a retry of the same customer reclaims it: another customer's request with the number is refused.
    const other = await post('/core-ws-rest/customer', customer(uniqueId('cust'), orphanComm));
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ errorCode: 'O001' });
    const retry = await post('/core-ws-rest/customer', customer(orphanExtId, orphanComm));
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({
      resultType: 'REQUEST_ACCEPTED',
      communicationNumber: orphanComm,
    });
    await decided(orphanComm);

    // A request that reached the decider keeps its communicationNumber however old its reservation is,
    // even for the same customer's retry.
    const usedComm = uniqueId('comm');
    const usedExtId = uniqueId('cust');
    expect((await post('/core-ws-rest/customer', customer(usedExtId, usedComm))).status).toBe(200);
    await decided(usedComm);
    await reservations.updateOne({ _id: reservationId(usedComm) }, { $set: { reservedAt: hourAgo } });
    const again = await post('/core-ws-rest/customer', customer(usedExtId, usedComm));
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ errorCode: 'O001' });
  });
});
