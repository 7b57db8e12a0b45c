import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import express, { type Router } from 'express';
import { createLogger } from '@crs/runtime';
import { createTokenVerifier, ensureLocalKeys, issueToken, type TokenVerifier } from '@crs/auth';
import { AUDITED_ROUTES, MAX_BATCH_STREAM_IDS, auditLog, auditOutcome } from './audit';
import { assertBusinessUnit, authenticate } from './auth-middleware';
import { errorMiddleware } from './error-middleware';
import { ResourceNotFoundError } from './api-error';
import { customerRoutes } from '../routes/customer-routes';
import { readRoutes } from '../routes/read-routes';
import { privacyRoutes } from '../routes/privacy-routes';
import { classifierRoutes } from '../routes/classifier-routes';
import { callbackRoutes } from '../routes/callback-routes';
import { operationRoutes } from '../routes/operation-routes';
import { riskRoutes } from '../routes/risk-routes';

const ISSUER = 'http://127.0.0.1/test-issuer';
const AUDIENCE = 'crs-api';

/** Personal data of the request bodies below: none of it may reach the log. */
const PERSONAL = {
  firstName: 'Zelda',
  lastName: 'Quixotewright',
  birthDate: '1961-02-03',
  nationalCode: '39001011234',
  streetAddress: 'Lindenstrasse 77',
};
const customer = (customerExtId: string, businessUnit = 'BU1') => ({
  communicationNumber: `COMM-${customerExtId}`,
  requester: 'crm',
  businessUnit,
  action: 'CREATE',
  entityType: 'INDIVIDUAL',
  customerExtId,
  ...PERSONAL,
  listAddress: [{ addressType: 'HOME', streetAddress: PERSONAL.streetAddress, city: 'Quedlinburg' }],
});

interface AuditLine {
  log: string;
  msg: string;
  level: number;
  audit: Record<string, unknown>;
}

/**
 * A real express app wired like the ingress (request id, the audit middleware, the JSON parser, routes
 * behind the real authenticate and business-unit check, the ingress's error middleware), a real pino
 * logger writing to memory and a real token verifier; requests over HTTP with fetch.
 */
describe('audit events', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  // The service logs warnings and errors only: audit events keep their own level.
  const logger = createLogger('ingress-test', 'warn', sink);
  let dir: string;
  let server: Server;
  let base: string;
  let verifier: TokenVerifier;
  let privateJwk: Awaited<ReturnType<typeof ensureLocalKeys>>['privateJwk'];

  const token = (scopes: string[], businessUnits: string[] | '*' = ['BU1'], subject = 'analyst-7') =>
    issueToken({ privateJwk, issuer: ISSUER, audience: AUDIENCE, subject, scopes, businessUnits });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crs-audit-'));
    const keys = await ensureLocalKeys(dir);
    privateJwk = keys.privateJwk;
    verifier = createTokenVerifier({ jwksFile: keys.jwksPath, issuer: ISSUER, audience: AUDIENCE });

    const app = express();
    app.set('query parser', 'simple');
    app.use((req, res, next) => {
      const id = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : 'none';
      Object.assign(req, { id, startedAt: process.hrtime.bigint() });
      res.setHeader('x-request-id', id);
      next();
    });
    app.get('/health/live', (_req, res) => {
      res.json({ status: 'UP' });
    });
    app.use(auditLog({ logger, verifier }));
    app.get('/metrics', (_req, res) => {
      res.type('text/plain').send('# nothing');
    });
    app.use(express.json());
    const write = authenticate(verifier, 'customers:write');
    const read = authenticate(verifier, 'customers:read');
    const accept = (req: express.Request, res: express.Response) => {
      assertBusinessUnit(req, (req.body as { businessUnit: string }).businessUnit);
      res.status(200).json({ resultType: 'REQUEST_ACCEPTED' });
    };
    app.post('/core-ws-rest/customer', write, (req, res) => {
      if ((req.body as { action?: string }).action === 'EXPLODE') throw new Error('database driver exploded');
      if ((req.body as { action?: string }).action === 'INVALID') {
        res.status(400).json({ resultType: 'REQUEST_REJECTED' });
        return;
      }
      accept(req, res);
    });
    app.post('/core-ws-rest/batch-customers', write, (_req, res) => {
      res.status(200).json({ results: [] });
    });
    app.get('/api/customers/:businessUnit/:customerExtId', read, async (req, res) => {
      assertBusinessUnit(req, req.params.businessUnit as string);
      if (req.params.customerExtId === 'SLOW') await new Promise((r) => setTimeout(r, 300));
      if (req.params.customerExtId === 'NONE') throw new ResourceNotFoundError('Customer not found');
      res.json({ customer: PERSONAL });
    });
    app.delete(
      '/api/customers/:businessUnit/:customerExtId/personal-data',
      authenticate(verifier, 'customers:write'),
      (req, res) => {
        assertBusinessUnit(req, req.params.businessUnit as string);
        res.status(202).json({});
      },
    );
    app.get('/api/integration-services/v1/communications-events/:communicationNumber', read, (_req, res) => {
      res.json({ events: [{ data: PERSONAL }], errors: [] });
    });
    app.post('/api/risk/overrides', authenticate(verifier, 'risk:override'), (req, res) => {
      assertBusinessUnit(req, (req.body as { businessUnit: string }).businessUnit);
      res.status(202).json({ communicationNumber: 'override-1' });
    });
    // Like the screening proxy: answered by another service, no principal attached here.
    app.post('/api/screening/decisions', (_req, res) => {
      res.status(202).json({ resultType: 'REQUEST_ACCEPTED' });
    });
    app.get('/classifier/:name', authenticate(verifier, 'classifiers:read'), (_req, res) => {
      res.json([]);
    });
    app.use((_req, _res, next) => next(new ResourceNotFoundError()));
    app.use(errorMiddleware(logger, () => new Date('2026-03-01T12:00:00.000Z')));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  let seq = 0;
  const call = async (
    method: string,
    path: string,
    opts: { token?: string; body?: unknown; signal?: AbortSignal } = {},
  ) => {
    const requestId = `req-${++seq}`;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        'x-request-id': requestId,
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    await res.arrayBuffer();
    return { requestId, status: res.status };
  };

  const auditLines = (): AuditLine[] =>
    lines.map((l) => JSON.parse(l) as AuditLine).filter((l) => l.log === 'audit');

  /** The audit events of one request; they are written when the answer has been sent, so wait a little. */
  const auditOf = async (requestId: string, settleMs = 50): Promise<Record<string, unknown>[]> => {
    const deadline = Date.now() + 3000;
    let found: AuditLine[] = [];
    while (Date.now() < deadline) {
      found = auditLines().filter((l) => l.audit.requestId === requestId);
      if (found.length > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    // A second event would arrive right after the first.
    await new Promise((r) => setTimeout(r, settleMs));
    found = auditLines().filter((l) => l.audit.requestId === requestId);
    for (const l of found) {
      expect(l.msg).toBe('audit');
      expect(l.level).toBe(30);
    }
    return found.map((l) => l.audit);
  };

  const logText = () => lines.join('');

  it('an accepted import: who, which customer, what, and no personal data', async () => {
    const { requestId, status } = await call('POST', '/core-ws-rest/customer', {
      token: await token(['customers:write'], ['BU1', 'BU3']),
      body: customer('CUST-1'),
    });
    expect(status).toBe(200);
    expect(await auditOf(requestId)).toEqual([
      {
        action: 'customer.import',
        outcome: 'ALLOWED',
        status: 200,
        subject: 'analyst-7',
        tokenId: expect.any(String),
        tokenBusinessUnits: ['BU1', 'BU3'],
        businessUnit: 'BU1',
        customerExtId: 'CUST-1',
        communicationNumber: 'COMM-CUST-1',
        requestId,
        method: 'POST',
        route: '/core-ws-rest/customer',
      },
    ]);
  });

  it('no token: DENIED, no subject, the customer the request named', async () => {
    const { requestId, status } = await call('POST', '/core-ws-rest/customer', { body: customer('CUST-2') });
    expect(status).toBe(401);
    expect(await auditOf(requestId)).toEqual([
      expect.objectContaining({
        action: 'customer.import',
        outcome: 'DENIED',
        status: 401,
        subject: null,
        tokenBusinessUnits: null,
        businessUnit: 'BU1',
        customerExtId: 'CUST-2',
      }),
    ]);
  });

  it('an invalid token: DENIED, no subject', async () => {
    const forged = `${(await token(['customers:write'])).slice(0, -4)}AAAA`;
    const { requestId, status } = await call('GET', '/api/customers/BU1/CUST-1', { token: forged });
    expect(status).toBe(401);
    expect(await auditOf(requestId)).toEqual([
      expect.objectContaining({ action: 'customer.read', outcome: 'DENIED', subject: null }),
    ]);
  });

  it('a business unit the token is not bound to: DENIED, with the subject and its business units', async () => {
    const { requestId, status } = await call('POST', '/core-ws-rest/customer', {
      token: await token(['customers:write'], ['BU1']),
      body: customer('CUST-3', 'BU2'),
    });
    expect(status).toBe(403);
    expect(await auditOf(requestId)).toEqual([
      expect.objectContaining({
        outcome: 'DENIED',
        status: 403,
        subject: 'analyst-7',
        tokenBusinessUnits: ['BU1'],
        businessUnit: 'BU2',
        customerExtId: 'CUST-3',
      }),
    ]);
  });

  it('a missing scope: DENIED, with the subject (the token is verified again)', async () => {
    const { requestId, status } = await call('POST', '/core-ws-rest/customer', {
      token: await token(['customers:read'], '*', 'reader-1'),
      body: customer('CUST-4'),
    });
    expect(status).toBe(403);
    expect(await auditOf(requestId)).toEqual([
      expect.objectContaining({ outcome: 'DENIED', subject: 'reader-1', tokenBusinessUnits: '*' }),
    ]);
  });

  it('a rejected request is REJECTED, a failed one FAILED', async () => {
    const write = await token(['customers:write']);
    const invalid = await call('POST', '/core-ws-rest/customer', {
      token: write,
      body: { ...customer('CUST-5'), action: 'INVALID' },
    });
    const failed = await call('POST', '/core-ws-rest/customer', {
      token: write,
      body: { ...customer('CUST-6'), action: 'EXPLODE' },
    });
    const missing = await call('GET', '/api/customers/BU1/NONE', { token: await token(['customers:read']) });
    expect([invalid.status, failed.status, missing.status]).toEqual([400, 500, 404]);
    expect(await auditOf(invalid.requestId)).toEqual([
      expect.objectContaining({ outcome: 'REJECTED', status: 400, customerExtId: 'CUST-5' }),
    ]);
    expect(await auditOf(failed.requestId)).toEqual([
      expect.objectContaining({ outcome: 'FAILED', status: 500, customerExtId: 'CUST-6' }),
    ]);
    expect(await auditOf(missing.requestId)).toEqual([
      expect.objectContaining({ action: 'customer.read', outcome: 'REJECTED', status: 404 }),
    ]);
  });

  it('a read names the customer of the path, decoded, and the route pattern', async () => {
    const { requestId, status } = await call('GET', '/api/customers/BU1/CUST%20%2F7', {
      token: await token(['customers:read']),
    });
    expect(status).toBe(200);
    expect(await auditOf(requestId)).toEqual([
      expect.objectContaining({
        action: 'customer.read',
        outcome: 'ALLOWED',
        businessUnit: 'BU1',
        customerExtId: 'CUST /7',
        communicationNumber: null,
        method: 'GET',
        route: '/api/customers/:businessUnit/:customerExtId',
      }),
    ]);
  });

  it('erasure, pull, risk override and callback routes have their actions', async () => {
    const erase = await call('DELETE', '/api/customers/BU1/CUST-8/personal-data', {
      token: await token(['customers:write']),
      body: { reason: `customer ${PERSONAL.firstName} asked` },
    });
    const pull = await call(
      'GET',
      '/api/integration-services/v1/communications-events/COMM-9?businessUnit=BU1',
      {
        token: await token(['customers:read']),
      },
    );
    const override = await call('POST', '/api/risk/overrides', {
      token: await token(['risk:override']),
      body: { businessUnit: 'BU1', customerExtId: 'CUST-10', level: 'HIGH', reason: PERSONAL.lastName },
    });
    const deliveries = await call(
      'GET',
      '/api/callbacks/deliveries?businessUnit=BU1&communicationNumber=C-11',
    );
    expect(await auditOf(erase.requestId)).toEqual([
      expect.objectContaining({
        action: 'customer.personal-data-erase',
        outcome: 'ALLOWED',
        status: 202,
        businessUnit: 'BU1',
        customerExtId: 'CUST-8',
        method: 'DELETE',
        route: '/api/customers/:businessUnit/:customerExtId/personal-data',
      }),
    ]);
    expect(await auditOf(pull.requestId)).toEqual([
      expect.objectContaining({
        action: 'customer.pull',
        outcome: 'ALLOWED',
        businessUnit: 'BU1',
        communicationNumber: 'COMM-9',
        customerExtId: null,
      }),
    ]);
    expect(await auditOf(override.requestId)).toEqual([
      expect.objectContaining({
        action: 'customer.risk-override',
        outcome: 'ALLOWED',
        businessUnit: 'BU1',
        customerExtId: 'CUST-10',
      }),
    ]);
    // No such route in this app: a 404, still an attempt on a customer's callbacks.
    expect(await auditOf(deliveries.requestId)).toEqual([
      expect.objectContaining({
        action: 'customer.callback-deliveries',
        outcome: 'REJECTED',
        businessUnit: 'BU1',
        communicationNumber: 'C-11',
      }),
    ]);
  });

  it('a screening decision answered by another service: the subject from the token', async () => {
    const { requestId, status } = await call('POST', '/api/screening/decisions', {
      token: await token(['screening:decide'], ['BU1'], 'reviewer-2'),
      body: {
        businessUnit: 'BU1',
        customerExtId: 'CUST-12',
        list: 'PEP',
        entryId: 'E-1',
        decision: 'FALSE_POSITIVE',
        reason: `not ${PERSONAL.firstName}`,
      },
    });
    expect(status).toBe(202);
    expect(await auditOf(requestId)).toEqual([
      expect.objectContaining({
        action: 'customer.screening-decision',
        outcome: 'ALLOWED',
        subject: 'reviewer-2',
        businessUnit: 'BU1',
        customerExtId: 'CUST-12',
      }),
    ]);
  });

  it('a batch: its size, business units and a bounded list of stream ids', async () => {
    const customers = Array.from({ length: MAX_BATCH_STREAM_IDS + 50 }, (_, i) => customer(`B-${i}`));
    const { requestId, status } = await call('POST', '/core-ws-rest/batch-customers', {
      token: await token(['customers:write']),
      body: { customers },
    });
    expect(status).toBe(200);
    const [event] = await auditOf(requestId);
    expect(event).toEqual(
      expect.objectContaining({
        action: 'customer.batch-import',
        outcome: 'ALLOWED',
        customers: MAX_BATCH_STREAM_IDS + 50,
        businessUnit: 'BU1',
        businessUnits: ['BU1'],
        streamIdsOmitted: 50,
        customerExtId: null,
      }),
    );
    expect(event!.streamIds).toHaveLength(MAX_BATCH_STREAM_IDS);
    expect((event!.streamIds as string[]).slice(0, 2)).toEqual(['BU1:B-0', 'BU1:B-1']);
  });

  it('a client that goes away before the answer: FAILED, aborted', async () => {
    const controller = new AbortController();
    const pending = call('GET', '/api/customers/BU1/SLOW', {
      token: await token(['customers:read']),
      signal: controller.signal,
    }).catch(() => undefined);
    const requestId = `req-${seq}`;
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await pending;
    expect(await auditOf(requestId, 400)).toEqual([
      expect.objectContaining({
        action: 'customer.read',
        outcome: 'FAILED',
        status: null,
        aborted: true,
        customerExtId: 'SLOW',
      }),
    ]);
  });

  it('requests that are not about customers write no audit event', async () => {
    const health = await call('GET', '/health/live');
    const metrics = await call('GET', '/metrics');
    const classifier = await call('GET', '/classifier/country?businessUnit=BU1', {
      token: await token(['classifiers:read']),
    });
    const unknown = await call('GET', '/api/nothing-here');
    expect([health.status, metrics.status, classifier.status, unknown.status]).toEqual([200, 200, 200, 404]);
    // Events are written in the order answers finish: once a later request's event is there, theirs would be.
    const later = await call('GET', '/api/customers/BU1/CUST-13', { token: await token(['customers:read']) });
    expect(await auditOf(later.requestId)).toHaveLength(1);
    const ids = new Set([health, metrics, classifier, unknown].map((r) => r.requestId));
    expect(auditLines().filter((l) => ids.has(l.audit.requestId as string))).toEqual([]);
  });

  it('no personal data in anything logged', () => {
    expect(auditLines().length).toBeGreaterThan(10);
    const text = logText();
    for (const value of Object.values(PERSONAL)) expect(text).not.toContain(value);
    expect(text).not.toContain('Quedlinburg');
    expect(text).not.toMatch(/firstName|birthDate|nationalCode|streetAddress|authorization|Bearer/i);
  });
});

describe('audit outcome', () => {
  it.each([
    [200, 'ALLOWED'],
    [202, 'ALLOWED'],
    [304, 'ALLOWED'],
    [400, 'REJECTED'],
    [401, 'DENIED'],
    [403, 'DENIED'],
    [404, 'REJECTED'],
    [409, 'REJECTED'],
    [413, 'REJECTED'],
    [500, 'FAILED'],
    [503, 'FAILED'],
  ])('%i is %s', (status, outcome) => {
    expect(auditOutcome(status)).toBe(outcome);
  });
});

/** Routes of the ingress's routers that read or change no customer data. */
const NOT_AUDITED = new Set([
  'GET /classifier/:name',
  'DELETE /api/integration-services/v1/discard-operations',
  'GET /api/integration-services/v1/operations-reconciliation',
]);

describe('every route of the ingress is classified', () => {
  // Routes only use their dependencies per request (except the one below): none is needed to list them.
  const unused = {} as never;
  const routers: Router[] = [
    customerRoutes(unused),
    readRoutes(unused),
    privacyRoutes(unused),
    classifierRoutes(unused),
    riskRoutes(unused),
    callbackRoutes(unused),
    operationRoutes({
      verifier: unused,
      catalog: unused,
      publisher: unused,
      topicPrefix: '',
      retryAfterSeconds: 1,
      clock: unused,
    }),
  ];
  const routes = routers.flatMap((router) =>
    (router.stack as { route?: { path: string; methods: Record<string, boolean> } }[])
      .filter((layer) => layer.route)
      .flatMap((layer) =>
        Object.keys(layer.route!.methods)
          .filter((m) => m !== '_all')
          .map((m) => `${m.toUpperCase()} ${layer.route!.path}`),
      ),
  );
  const audited = new Set(AUDITED_ROUTES.map((r) => `${r.method} ${r.route}`));

  it('finds the routers’ routes', () => {
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /core-ws-rest/customer',
        'DELETE /api/customers/:businessUnit/:customerExtId/personal-data',
        'GET /classifier/:name',
      ]),
    );
  });

  it.each(routes)('%s is audited or known not to touch customer data', (route) => {
    expect(audited.has(route) || NOT_AUDITED.has(route)).toBe(true);
  });
});
