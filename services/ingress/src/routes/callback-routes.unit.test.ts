import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createTokenVerifier, ensureLocalKeys, issueToken, type Scope } from '@crs/auth';
import { createValidators } from '@crs/contracts';
import { createLogger } from '@crs/runtime';
import { errorMiddleware } from '../http/error-middleware';
import { callbackRoutes } from './callback-routes';

/**
 * The ingress's callback routes in front of a stand-in for the callback service's API: the token, the
 * scope, the parameters and the business unit are checked before anything is forwarded; a checked
 * request goes on with the client's token; the answer comes back unchanged; a callback service that
 * cannot be reached is a 503 with the ingress's Retry-After.
 */
describe('callback routes: checked at the ingress, answered by the callback service', () => {
  const ISSUER = 'http://issuer.test';
  const AUDIENCE = 'crs-api';
  let dir: string;
  let privateJwk: Awaited<ReturnType<typeof ensureLocalKeys>>['privateJwk'];
  let ingress: Server;
  let upstream: Server;
  let base = '';
  /** What the stand-in callback API received. */
  const forwarded: { method: string; url: string; authorization?: string; body: string }[] = [];
  let answer: { status: number; body: unknown; headers?: Record<string, string> } = { status: 200, body: {} };

  const token = (scopes: Scope[], businessUnits: string[] = ['DEMO']) =>
    issueToken({ privateJwk, issuer: ISSUER, audience: AUDIENCE, subject: 'unit', scopes, businessUnits });
  const call = async (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    if (init.body) headers.set('content-type', 'application/json');
    const res = await fetch(`${base}${path}`, { ...init, headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
  const listen = async (server: Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => resolve(text));
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crs-callback-routes-'));
    const keys = await ensureLocalKeys(dir);
    privateJwk = keys.privateJwk;
    upstream = createServer((req, res) => {
      void readBody(req).then((body) => {
        forwarded.push({
          method: req.method!,
          url: req.url!,
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
          body,
        });
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body));
      });
    });
    const upstreamPort = await listen(upstream);
    const app = express();
    app.use(express.json());
    app.use(
      callbackRoutes({
        verifier: createTokenVerifier({ jwksFile: keys.jwksPath, issuer: ISSUER, audience: AUDIENCE }),
        validators: createValidators(),
        callbackApi: { url: `http://127.0.0.1:${upstreamPort}`, timeoutMs: 2000, retryAfterSeconds: 7 },
      }),
    );
    app.use(errorMiddleware(createLogger('unit', 'fatal'), () => new Date()));
    base = `http://127.0.0.1:${await listen((ingress = createServer(app)))}`;
  });
  beforeEach(() => {
    forwarded.length = 0;
    answer = { status: 200, body: {} };
  });
  afterAll(async () => {
    await new Promise((r) => ingress.close(r));
    await new Promise((r) => upstream.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  it('forwards a checked request with the client token and relays the answer unchanged', async () => {
    const t = await token(['callbacks:redeliver']);
    answer = { status: 200, body: { deliveries: [{ eventId: 'e-1', status: 'dead' }] } };
    const log = await call('/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=C%201', {
      token: t,
    });
    expect(log).toMatchObject({ status: 200, body: { deliveries: [{ eventId: 'e-1', status: 'dead' }] } });
    answer = { status: 202, body: { requeued: 2 } };
    const body = { businessUnit: 'DEMO', communicationNumber: 'C 1', eventIds: ['e-1'] };
    const redeliver = await call('/api/callbacks/redeliver', {
      method: 'POST',
      token: t,
      body: JSON.stringify(body),
    });
    expect(redeliver).toMatchObject({ status: 202, body: { requeued: 2 } });
    expect(forwarded).toEqual([
      {
        method: 'GET',
        url: '/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=C+1',
        authorization: `Bearer ${t}`,
        body: '',
      },
      {
        method: 'POST',
        url: '/api/callbacks/redeliver',
        authorization: `Bearer ${t}`,
        body: JSON.stringify(body),
      },
    ]);
  });

  it('refuses before forwarding: no token, another scope, another business unit, missing or invalid parameters', async () => {
    const other = await token(['customers:read']);
    const demo = await token(['callbacks:redeliver']);
    const cases = [
      [
        await call('/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=C'),
        401,
        'AUTH_MISSING_TOKEN',
      ],
      [
        await call('/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=C', { token: other }),
        403,
        'AUTH_FORBIDDEN_SCOPE',
      ],
      [
        await call('/api/callbacks/deliveries?businessUnit=OTHER&communicationNumber=C', { token: demo }),
        403,
        'AUTH_FORBIDDEN_BUSINESS_UNIT',
      ],
      [await call('/api/callbacks/deliveries?businessUnit=DEMO', { token: demo }), 400, 'V001'],
      [
        await call('/api/callbacks/redeliver', {
          method: 'POST',
          token: demo,
          body: JSON.stringify({ businessUnit: 'OTHER', communicationNumber: 'C' }),
        }),
        403,
        'AUTH_FORBIDDEN_BUSINESS_UNIT',
      ],
      [
        await call('/api/callbacks/redeliver', {
          method: 'POST',
          token: demo,
          body: JSON.stringify({ businessUnit: 'DEMO' }),
        }),
        400,
        'V001.communicationNumber.REQUIRED',
      ],
    ] as const;
    for (const [res, status, errorCode] of cases)
      expect({ status: res.status, errorCode: res.body.errorCode }).toEqual({ status, errorCode });
    expect(forwarded).toEqual([]);
  });

  it('a 503 of the callback service carries the ingress Retry-After; an unreachable one is a 503 too', async () => {
    const t = await token(['callbacks:redeliver']);
    answer = {
      status: 503,
      body: { errorCode: 'SERVICE_UNAVAILABLE', errorDescription: 'The database is unavailable' },
      headers: { 'retry-after': '5' },
    };
    const busy = await call('/api/callbacks/deliveries?businessUnit=DEMO&communicationNumber=C', {
      token: t,
    });
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('7');
    expect(busy.body).toEqual(answer.body);

    await new Promise((r) => upstream.close(r));
    const down = await call('/api/callbacks/redeliver', {
      method: 'POST',
      token: t,
      body: JSON.stringify({ businessUnit: 'DEMO', communicationNumber: 'C' }),
    });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('7');
    expect(down.body.errorCode).toBe('SERVICE_UNAVAILABLE');
  });
});
