import { createHmac, createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { issueToken, type Scope } from '@crs/auth';
import { ALL_SCOPES, ROOT, TestCluster, eventually, localToken, uniqueId } from '@crs/testing';
import { batchItem, client, individual, simplified, type Answer, type Json } from './api-support';

type SigningJwk = Parameters<typeof issueToken>[0]['privateJwk'];

/**
 * The attack matrix: every endpoint that needs a token, against every kind of bad token, over real
 * HTTP. Nothing an attacker sends may be accepted, and reading another business unit's data must
 * never leak it (docs/auth.md, docs/api.md, docs/error-codes.md).
 */

const ISSUER = 'http://127.0.0.1:8080/local-issuer';
const AUDIENCE = 'crs-api';

interface Endpoint {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  scope: Scope;
  body?: () => unknown;
}

// One record for every attack on a write endpoint: that none of them was accepted shows at the end,
// when the same record is still accepted with a good token.
const target = individual();
const targetSimplified = simplified();
const targetBatch = batchItem();

const routeSources = readdirSync(join(ROOT, 'services/ingress/src/routes'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(join(ROOT, 'services/ingress/src/routes', f), 'utf8'))
  .join('\n');

const ENDPOINTS: Endpoint[] = [
  {
    name: 'import customer',
    method: 'POST',
    path: '/core-ws-rest/customer',
    scope: 'customers:write',
    body: () => target,
  },
  {
    name: 'validate batch',
    method: 'POST',
    path: '/core-ws-rest/validate-batch-customers',
    scope: 'customers:write',
    body: () => ({ customers: [targetBatch] }),
  },
  {
    name: 'import batch',
    method: 'POST',
    path: '/core-ws-rest/batch-customers',
    scope: 'customers:write',
    body: () => ({ customers: [targetBatch] }),
  },
  {
    name: 'simplified customer',
    method: 'POST',
    path: '/core-ws-rest/simplifiedCustomer',
    scope: 'customers:write',
    body: () => targetSimplified,
  },
  ...[
    'paymentPurposeType',
    'accountType',
    'addressType',
    'sourceOfWealth',
    'currency',
    'country',
    'riskManagementCategory',
  ].map(
    (c): Endpoint => ({
      name: `classifier ${c}`,
      method: 'GET',
      path: `/classifier/${c}?businessUnit=DEMO`,
      scope: 'classifiers:read',
    }),
  ),
  {
    name: 'read customer',
    method: 'GET',
    path: `/api/customers/DEMO/${String(target.customerExtId)}`,
    scope: 'customers:read',
  },
  {
    name: 'communication events',
    method: 'GET',
    path: `/api/integration-services/v1/communications-events/${String(target.communicationNumber)}?businessUnit=DEMO`,
    scope: 'customers:read',
  },
  // Endpoints other engineers add: covered as soon as the ingress declares them.
  ...(routeSources.includes('discard-operations')
    ? [
        {
          name: 'discard operation',
          method: 'DELETE',
          path: `/api/integration-services/v1/discard-operations?extId=${uniqueId('op')}&businessUnit=DEMO`,
          scope: 'operations:archive',
        } as Endpoint,
      ]
    : []),
  ...(routeSources.includes('/api/risk/overrides')
    ? [
        {
          name: 'risk override',
          method: 'POST',
          path: '/api/risk/overrides',
          scope: 'risk:override',
          body: () => ({
            businessUnit: 'DEMO',
            customerExtId: target.customerExtId,
            level: 'HIGH',
            reason: 'attack matrix',
          }),
        } as Endpoint,
      ]
    : []),
];

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('HTTP API attack matrix', () => {
  const cluster = new TestCluster('e2e-api-auth');
  const log: Answer[] = [];
  const api = client(cluster, log);
  const attacks: { name: string; header: string | undefined; code: string }[] = [];
  let good: string;

  beforeAll(async () => {
    await cluster.start();
    good = await localToken();
    const privateJwk = JSON.parse(
      readFileSync(join(ROOT, '.local/auth/signing-key.private.jwk.json'), 'utf8'),
    );
    const publicJwk = (
      JSON.parse(readFileSync(join(ROOT, '.local/auth/jwks.json'), 'utf8')) as { keys: Json[] }
    ).keys[0]!;
    const now = Math.floor(Date.now() / 1000);
    const sign = (over: Partial<Parameters<typeof issueToken>[0]>) =>
      issueToken({
        privateJwk,
        issuer: ISSUER,
        audience: AUDIENCE,
        subject: 'attacker',
        scopes: ALL_SCOPES,
        businessUnits: ['DEMO'],
        ...over,
      });
    const claims = {
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'attacker',
      scope: ALL_SCOPES.join(' '),
      business_units: ['DEMO'],
      iat: now,
      exp: now + 3600,
      jti: randomUUID(),
    };

    // A key pair of our own, presented under the trusted key's kid and under a kid of its own.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    // Node's JsonWebKey leaves every member optional; an exported EC key has them all.
    const foreign = privateKey.export({ format: 'jwk' }) as SigningJwk;
    const hmacToken = (secret: string | Buffer) => {
      const signingInput = `${b64({ alg: 'HS256', typ: 'JWT', kid: publicJwk.kid })}.${b64(claims)}`;
      return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
    };
    const publicPem = createPublicKey({ key: publicJwk as never, format: 'jwk' }).export({
      type: 'spki',
      format: 'pem',
    });
    const invalid = 'AUTH_INVALID_TOKEN';
    attacks.push(
      { name: 'no Authorization header', header: undefined, code: 'AUTH_MISSING_TOKEN' },
      { name: 'Basic credentials', header: 'Basic YWRtaW46YWRtaW4=', code: 'AUTH_MISSING_TOKEN' },
      { name: 'Bearer without a token', header: 'Bearer', code: invalid },
      { name: 'malformed token', header: 'Bearer not-a-jwt', code: invalid },
      { name: 'three garbage segments', header: 'Bearer aaa.bbb.ccc', code: invalid },
      { name: 'two tokens', header: `Bearer ${good} ${good}`, code: invalid },
      {
        name: 'a good token with its signature cut off',
        header: `Bearer ${good.split('.').slice(0, 2).join('.')}.`,
        code: invalid,
      },
      {
        name: 'a good token with a changed payload',
        header: `Bearer ${good.split('.')[0]}.${b64({ ...claims, business_units: ['*'] })}.${good.split('.')[2]}`,
        code: invalid,
      },
      {
        name: 'expired',
        header: `Bearer ${await sign({ now: now - 7200, expiresInSec: 600 })}`,
        code: invalid,
      },
      { name: 'not yet valid', header: `Bearer ${await sign({ notBeforeSec: 3600 })}`, code: invalid },
      {
        name: 'wrong issuer',
        header: `Bearer ${await sign({ issuer: 'https://evil.example/issuer' })}`,
        code: invalid,
      },
      { name: 'wrong audience', header: `Bearer ${await sign({ audience: 'another-api' })}`, code: invalid },
      {
        name: 'wrong key under the trusted kid',
        header: `Bearer ${await sign({ privateJwk: { ...foreign, kid: publicJwk.kid as string, alg: 'ES256' } })}`,
        code: invalid,
      },
      {
        name: 'wrong key under its own kid',
        header: `Bearer ${await sign({ privateJwk: { ...foreign, kid: 'attacker-key', alg: 'ES256' } })}`,
        code: invalid,
      },
      {
        name: 'alg none',
        header: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
        code: invalid,
      },
      {
        name: 'HS256 MACed with the public key (PEM)',
        header: `Bearer ${hmacToken(String(publicPem))}`,
        code: invalid,
      },
      {
        name: 'HS256 MACed with the public key (JWK)',
        header: `Bearer ${hmacToken(JSON.stringify(publicJwk))}`,
        code: invalid,
      },
    );
  });

  afterAll(async () => {
    await cluster.stop();
  });

  const call = (e: Endpoint, headers: Record<string, string>) =>
    api.send(e.path, { method: e.method, headers, ...(e.body ? { body: JSON.stringify(e.body()) } : {}) });

  it.each(ENDPOINTS.map((e) => [e.name, e] as const))(
    '%s: every bad token gets 401 with a Bearer challenge',
    async (_name, endpoint) => {
      for (const attack of attacks) {
        const res = await call(endpoint, attack.header === undefined ? {} : { authorization: attack.header });
        expect({ attack: attack.name, status: res.status, code: res.body.errorCode }).toEqual({
          attack: attack.name,
          status: 401,
          code: attack.code,
        });
        const challenge = res.headers.get('www-authenticate') ?? '';
        expect(challenge).toMatch(/^Bearer realm="crs"/);
        if (attack.code === 'AUTH_INVALID_TOKEN') expect(challenge).toContain('error="invalid_token"');
        expect(Object.keys(res.body).sort()).toEqual(['errorCode', 'errorDescription']);
      }
    },
  );

  it.each(ENDPOINTS.map((e) => [e.name, e] as const))(
    '%s: a token without the scope gets 403 AUTH_FORBIDDEN_SCOPE',
    async (_name, endpoint) => {
      const token = await localToken({ scopes: ALL_SCOPES.filter((s) => s !== endpoint.scope) });
      const res = await call(endpoint, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('AUTH_FORBIDDEN_SCOPE');
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    },
  );

  it.each(ENDPOINTS.map((e) => [e.name, e] as const))(
    '%s: a token of another business unit is refused',
    async (_name, endpoint) => {
      const token = await localToken({ businessUnits: ['ELSEWHERE'] });
      const res = await call(endpoint, { authorization: `Bearer ${token}` });
      if (endpoint.path.includes('batch-customers')) {
        // docs/error-codes.md: in batches the refusal is per item.
        expect(res.status).toBe(200);
        expect(res.body.results).toEqual([
          expect.objectContaining({
            resultType: 'REQUEST_REJECTED',
            errorCode: 'AUTH_FORBIDDEN_BUSINESS_UNIT',
          }),
        ]);
      } else {
        expect(res.status).toBe(403);
        expect(res.body.errorCode).toBe('AUTH_FORBIDDEN_BUSINESS_UNIT');
      }
    },
  );

  it('nothing any attack sent was accepted: the same records are still accepted with a good token', async () => {
    expect((await api.post('/core-ws-rest/customer', target, good)).status).toBe(200);
    expect((await api.post('/core-ws-rest/simplifiedCustomer', targetSimplified, good)).status).toBe(200);
    const batch = await api.post('/core-ws-rest/batch-customers', { customers: [targetBatch] }, good);
    expect(batch.body.results[0].resultType).toBe('REQUEST_ACCEPTED');
  });

  it("another business unit's customer and communication events never leak", async () => {
    const secret = individual({ firstName: 'Confidential', lastName: 'Person' });
    expect((await api.post('/core-ws-rest/customer', secret, good)).status).toBe(200);
    const own = `/api/customers/DEMO/${String(secret.customerExtId)}`;
    const events = `/api/integration-services/v1/communications-events/${String(secret.communicationNumber)}`;
    await eventually(
      async () => ((await api.get(own, good)).status === 200 ? true : undefined),
      60000,
      'customer visible to its own unit',
    );
    expect((await api.get(events, good)).status).toBe(200);

    const outsider = await localToken({ businessUnits: ['ELSEWHERE'] });
    const tries: [string, number][] = [
      [own, 403],
      [events, 404], // filtered to the token's units: for them it does not exist
      [`${events}?businessUnit=DEMO`, 403],
      [`${events}?businessUnit=ELSEWHERE`, 404],
      ['/classifier/riskManagementCategory', 200], // the token's own unit (no DEMO entries)
    ];
    for (const [path, status] of tries) {
      const res = await api.get(path, outsider);
      expect({ path, status: res.status }).toEqual({ path, status });
      const text = JSON.stringify(res.body);
      expect(text).not.toContain('Confidential');
      expect(text).not.toContain(String(secret.customerExtId));
      expect(text).not.toContain('"DEMO"');
    }
    // Path tricks do not reach another unit either.
    for (const path of [
      `/api/customers/ELSEWHERE/..%2FDEMO%2F${String(secret.customerExtId)}`,
      `/api/customers/DEMO%00/${String(secret.customerExtId)}`,
    ]) {
      const res = await api.get(path, outsider);
      expect([400, 403, 404]).toContain(res.status);
      expect(JSON.stringify(res.body)).not.toContain('Confidential');
    }
  });

  it('probes need no token; no answer of this suite was a 5xx', async () => {
    expect((await api.get('/health/live')).status).toBe(200);
    expect((await api.get('/health/ready')).status).toBe(200);
    expect(log.filter((a) => a.status >= 500).map((a) => a.status)).toEqual([]);
  });
});
