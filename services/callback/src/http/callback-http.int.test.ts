import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { createTokenVerifier, ensureLocalKeys, issueToken, type Scope } from '@crs/auth';
import { createValidators } from '@crs/contracts';
import { Health, createLogger, createMetricsRegistry } from '@crs/runtime';
import { DeliveryStore, type DeliveryDoc } from '../delivery-store';
import { callbackHttpHandler } from './callback-http';
import { RedeliveryApi } from './redelivery-api';

/**
 * The callback service's own HTTP API on the real store: the delivery log and redelivery, behind its
 * own token check (scope and business unit), in the ingress's answer shapes; health and metrics as before.
 */
describe('callback HTTP API', () => {
  const ISSUER = 'http://issuer.test';
  const AUDIENCE = 'crs-api';
  let dir: string;
  let client: MongoClient;
  let db: Db;
  let store: DeliveryStore;
  let server: Server;
  let api: RedeliveryApi | undefined;
  let base = '';
  let privateJwk: Awaited<ReturnType<typeof ensureLocalKeys>>['privateJwk'];
  const health = new Health();

  const token = (scopes: Scope[] = ['callbacks:redeliver'], businessUnits = ['DEMO']) =>
    issueToken({ privateJwk, issuer: ISSUER, audience: AUDIENCE, subject: 'it', scopes, businessUnits });
  const call = async (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
    const res = await fetch(`${base}${path}`, { ...init, headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
  const delivery = (
    eventId: string,
    status: DeliveryDoc['status'],
    communicationNumber = 'C-1',
  ): DeliveryDoc => ({
    _id: `${eventId}|ep-1`,
    eventId,
    endpointId: 'ep-1',
    url: 'http://127.0.0.1:9/cb',
    businessUnit: 'DEMO',
    communicationNumber,
    customerExtId: 'CUST-1',
    streamId: 'DEMO|CUST-1',
    streamVersion: Number(eventId.split('.').pop()),
    cloudEvent: {
      specversion: '1.0',
      id: eventId,
      type: 'com.crs.customer.created',
      source: communicationNumber,
      subject: 'CUST-1',
      time: new Date().toISOString(),
      data: {},
    },
    status,
    attempts: status === 'dead' ? 4 : 1,
    nextAttemptAt: new Date(),
    createdAt: new Date(),
    log: [{ at: new Date(), status: 503, ms: 12, error: 'HTTP 503' }],
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crs-callback-http-'));
    const keys = await ensureLocalKeys(dir);
    privateJwk = keys.privateJwk;
    client = await new MongoClient(process.env.MONGODB_URI!).connect();
    db = client.db(`crs_it_cbhttp_${randomUUID().slice(0, 8)}`);
    store = new DeliveryStore(db);
    await store.ensureIndexes();
    server = createServer(
      callbackHttpHandler({
        health,
        metrics: createMetricsRegistry('callback-it'),
        logger: createLogger('callback-http-it', 'fatal'),
        api: () => api,
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await db.dropDatabase();
    await client.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After until its store is connected, and serves health meanwhile', async () => {
    const starting = await call('/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=C-1', {
      token: await token(),
    });
    expect(starting.status).toBe(503);
    expect(starting.headers.get('retry-after')).toBe('5');
    expect(starting.body.errorCode).toBe('SERVICE_UNAVAILABLE');
    expect((await call('/health/live')).body).toEqual({ status: 'UP' });
    api = new RedeliveryApi({
      verifier: createTokenVerifier({ jwksFile: join(dir, 'jwks.json'), issuer: ISSUER, audience: AUDIENCE }),
      validators: createValidators(),
      store,
      clock: () => new Date(),
    });
  });

  it('the delivery log of a communication, then a redelivery of its dead letters', async () => {
    await store.collection.insertMany([
      delivery('e.0', 'dead'),
      delivery('e.1', 'delivered'),
      delivery('x.0', 'dead', 'C-2'),
    ]);
    const t = await token();
    const log = await call('/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=C-1', {
      token: t,
    });
    expect(log.status).toBe(200);
    expect(log.body).toEqual({
      deliveries: [
        expect.objectContaining({ eventId: 'e.0', status: 'dead', attempts: 4, nextAttemptAt: null }),
        expect.objectContaining({ eventId: 'e.1', status: 'delivered', type: 'com.crs.customer.created' }),
      ],
    });
    const redeliver = await call('/api/callbacks/redeliver', {
      method: 'POST',
      token: t,
      body: JSON.stringify({ businessUnit: 'DEMO', communicationNumber: 'C-1' }),
    });
    expect(redeliver).toMatchObject({ status: 202, body: { requeued: 1 } });
    expect(await store.queue.findOne({ _id: 'e.0|ep-1' })).not.toBeNull();
    expect(await store.queue.findOne({ _id: 'x.0|ep-1' })).toBeNull();
  });

  it('verifies on its own: token, scope, business unit, parameters and body', async () => {
    const path = '/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=C-1';
    const redeliver = async (t: string | undefined, body: string, contentType = 'application/json') =>
      call('/api/callbacks/redeliver', {
        method: 'POST',
        ...(t ? { token: t } : {}),
        body,
        headers: { 'content-type': contentType },
      });
    const demo = await token();
    const cases: [Awaited<ReturnType<typeof call>>, number, string][] = [
      [await call(path), 401, 'AUTH_MISSING_TOKEN'],
      [await call(path, { token: 'not-a-token' }), 401, 'AUTH_INVALID_TOKEN'],
      [await call(path, { token: await token(['customers:read']) }), 403, 'AUTH_FORBIDDEN_SCOPE'],
      [await call(path, { token: await token(undefined, ['OTHER']) }), 403, 'AUTH_FORBIDDEN_BUSINESS_UNIT'],
      [await call('/api/callbacks/deliveries?businessUnit=DEMO', { token: demo }), 400, 'V001'],
      [
        await redeliver(demo, '{"businessUnit":"OTHER","communicationNumber":"C"}'),
        403,
        'AUTH_FORBIDDEN_BUSINESS_UNIT',
      ],
      [await redeliver(demo, '{"businessUnit":"DEMO"}'), 400, 'V001.communicationNumber.REQUIRED'],
      [await redeliver(demo, '{'), 400, 'MALFORMED_JSON'],
      [await redeliver(demo, '{}', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [await redeliver(demo, JSON.stringify({ pad: 'x'.repeat(70000) })), 413, 'PAYLOAD_TOO_LARGE'],
      [await call('/api/callbacks/other', { token: demo }), 404, 'NOT_FOUND'],
    ];
    expect(cases.map(([res]) => [res.status, res.body.errorCode])).toEqual(
      cases.map(([, status, code]) => [status, code]),
    );
    expect(cases[0]![0].headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});
