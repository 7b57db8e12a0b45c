import { createHmac, createPublicKey } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  base64url,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type JWK,
  type JSONWebKeySet,
} from 'jose';
import { createTokenVerifier, type TokenVerifier } from './createTokenVerifier';
import { AuthConfigInvalidError } from './errors/AuthConfigInvalidError';
import { AuthInvalidTokenError, type AuthInvalidTokenReason } from './errors/AuthInvalidTokenError';
import { AuthKeysUnavailableError } from './errors/AuthKeysUnavailableError';
import { AuthMissingTokenError } from './errors/AuthMissingTokenError';
import { issueToken, type IssueTokenOptions } from './issueToken';
import { ensureLocalKeys, type LocalKeyPair } from './keys/ensureLocalKeys';

const issuer = 'http://127.0.0.1:8080/local-issuer';
const audience = 'crs-api';

let dir: string;
let keys: LocalKeyPair;
let verifier: TokenVerifier;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crs-auth-verifier-'));
  keys = await ensureLocalKeys(dir);
  verifier = createTokenVerifier({ jwksFile: keys.jwksPath, issuer, audience });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function token(overrides: Partial<IssueTokenOptions> = {}): Promise<string> {
  return issueToken({
    privateJwk: keys.privateJwk,
    issuer,
    audience,
    subject: 'alice',
    scopes: ['customers:write', 'customers:read'],
    businessUnits: ['BU1', 'BU2'],
    ...overrides,
  });
}

async function rejection(header: string | undefined, v: TokenVerifier = verifier): Promise<unknown> {
  try {
    await v.verify(header);
  } catch (err) {
    return err;
  }
  throw new Error('expected the token to be rejected');
}

async function expectInvalid(header: string, reason: AuthInvalidTokenReason, v?: TokenVerifier) {
  const err = await rejection(header, v);
  expect(err).toBeInstanceOf(AuthInvalidTokenError);
  expect(err).toMatchObject({ code: 'AUTH_INVALID_TOKEN', httpStatus: 401, reason });
  expect((err as AuthInvalidTokenError).wwwAuthenticate).toMatch(
    /^Bearer realm="crs", error="invalid_token", error_description="[^"\\]+"$/,
  );
}

async function otherKey(kid: string): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
  };
}

function b64json(value: unknown): string {
  return base64url.encode(JSON.stringify(value));
}

function validClaims() {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: issuer,
    aud: audience,
    sub: 'mallory',
    exp: now + 600,
    iat: now,
    scope: 'risk:override',
    business_units: ['*'],
  };
}

describe('createTokenVerifier', () => {
  it('returns the principal of a valid token', async () => {
    const principal = await verifier.verify(`Bearer ${await token()}`);
    expect(principal.subject).toBe('alice');
    expect([...principal.scopes].sort()).toEqual(['customers:read', 'customers:write']);
    expect(principal.businessUnits).toEqual(new Set(['BU1', 'BU2']));
    expect(principal.tokenId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('accepts the scheme name in any case', async () => {
    await expect(verifier.verify(`bearer ${await token()}`)).resolves.toMatchObject({ subject: 'alice' });
  });

  it('maps a "*" business unit claim to all business units', async () => {
    const principal = await verifier.verify(`Bearer ${await token({ businessUnits: '*' })}`);
    expect(principal.businessUnits).toBe('*');
  });

  it('reads scopes from an scp array', async () => {
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({ scp: ['screening:search', 'screening:decide'], business_units: ['BU1'] })
      .setProtectedHeader({ alg: 'ES256', kid: keys.privateJwk.kid! })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject('svc')
      .setExpirationTime(now + 60)
      .sign(await importPrivate(keys.privateJwk));
    const principal = await verifier.verify(`Bearer ${jwt}`);
    expect(principal.scopes).toEqual(new Set(['screening:search', 'screening:decide']));
    expect(principal.tokenId).toBeUndefined();
  });

  it('asks for a token with a bare challenge when the header is missing', async () => {
    const err = await rejection(undefined);
    expect(err).toBeInstanceOf(AuthMissingTokenError);
    expect(err).toMatchObject({
      code: 'AUTH_MISSING_TOKEN',
      httpStatus: 401,
      wwwAuthenticate: 'Bearer realm="crs"',
    });
    expect(await rejection('   ')).toBeInstanceOf(AuthMissingTokenError);
  });

  it('treats another authentication scheme as no bearer token', async () => {
    expect(await rejection('Basic YWxpY2U6c2VjcmV0')).toBeInstanceOf(AuthMissingTokenError);
  });

  it('rejects malformed tokens', async () => {
    await expectInvalid('Bearer', 'malformed');
    await expectInvalid('Bearer not-a-jwt', 'malformed');
    await expectInvalid('Bearer a.b.c', 'malformed');
    await expectInvalid('Bearer two tokens', 'malformed');
    await expectInvalid('Bearer {"alg":"ES256"}', 'malformed');
  });

  it('rejects an expired token', async () => {
    await expectInvalid(`Bearer ${await token({ expiresInSec: -120 })}`, 'expired');
  });

  it('tolerates clock skew within clockToleranceSec', async () => {
    await expect(verifier.verify(`Bearer ${await token({ expiresInSec: -5 })}`)).resolves.toBeDefined();
  });

  it('rejects a token that is not valid yet', async () => {
    await expectInvalid(`Bearer ${await token({ notBeforeSec: 3600 })}`, 'not_yet_valid');
  });

  it('rejects a token from another issuer', async () => {
    await expectInvalid(`Bearer ${await token({ issuer: 'https://evil.example/' })}`, 'wrong_issuer');
  });

  it('rejects a token for another audience', async () => {
    await expectInvalid(`Bearer ${await token({ audience: 'other-api' })}`, 'wrong_audience');
  });

  it('rejects a token signed by an unknown key', async () => {
    const { privateJwk } = await otherKey('someone-else');
    await expectInvalid(`Bearer ${await token({ privateJwk })}`, 'bad_signature');
  });

  it('rejects a token signed by another key that claims the trusted kid', async () => {
    const { privateJwk } = await otherKey(keys.privateJwk.kid!);
    await expectInvalid(`Bearer ${await token({ privateJwk })}`, 'bad_signature');
  });

  it('rejects a token whose claims were altered after signing', async () => {
    const [header, , signature] = (await token()).split('.');
    await expectInvalid(
      `Bearer ${header}.${b64json({ ...validClaims(), sub: 'alice' })}.${signature}`,
      'bad_signature',
    );
  });

  it('rejects an unsigned token (alg none)', async () => {
    const jwt = `${b64json({ alg: 'none', typ: 'JWT' })}.${b64json(validClaims())}.`;
    await expectInvalid(`Bearer ${jwt}`, 'alg_not_allowed');
  });

  it('rejects a token MACed with the public key (HS256 key confusion)', async () => {
    const publicPem = createPublicKey({
      key: keys.jwks.keys[0] as import('node:crypto').JsonWebKey,
      format: 'jwk',
    })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    for (const secret of [publicPem, JSON.stringify(keys.jwks.keys[0])]) {
      const signingInput = `${b64json({ alg: 'HS256', typ: 'JWT', kid: keys.privateJwk.kid })}.${b64json(validClaims())}`;
      const mac = createHmac('sha256', secret).update(signingInput).digest();
      await expectInvalid(`Bearer ${signingInput}.${base64url.encode(mac)}`, 'alg_not_allowed');
    }
  });

  it('rejects a token that lacks exp or sub', async () => {
    const key = await importPrivate(keys.privateJwk);
    const header = { alg: 'ES256', kid: keys.privateJwk.kid! };
    const noExp = await new SignJWT({})
      .setProtectedHeader(header)
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject('a')
      .sign(key);
    await expectInvalid(`Bearer ${noExp}`, 'malformed');
    const noSub = await new SignJWT({})
      .setProtectedHeader(header)
      .setIssuer(issuer)
      .setAudience(audience)
      .setExpirationTime('5m')
      .sign(key);
    await expectInvalid(`Bearer ${noSub}`, 'malformed');
  });

  it('rejects a business_units claim that is not a list of strings', async () => {
    const jwt = await new SignJWT({ business_units: 'BU1' })
      .setProtectedHeader({ alg: 'ES256', kid: keys.privateJwk.kid! })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject('a')
      .setExpirationTime('5m')
      .sign(await importPrivate(keys.privateJwk));
    await expectInvalid(`Bearer ${jwt}`, 'malformed');
  });

  it('verifies a token without kid against every candidate key of a rotating JWKS', async () => {
    const current = await otherKey('current');
    const next = await otherKey('next');
    const path = join(dir, 'rotating-jwks.json');
    const strip = ({ kid: _kid, ...jwk }: JWK): JWK => jwk;
    await writeFile(path, JSON.stringify({ keys: [current.publicJwk, next.publicJwk] }));
    const v = createTokenVerifier({ jwksFile: path, issuer, audience });
    for (const key of [current, next]) {
      const jwt = await token({ privateJwk: strip(key.privateJwk) });
      await expect(v.verify(`Bearer ${jwt}`)).resolves.toMatchObject({ subject: 'alice' });
    }
    const stranger = await otherKey('stranger');
    await expectInvalid(
      `Bearer ${await token({ privateJwk: strip(stranger.privateJwk) })}`,
      'bad_signature',
      v,
    );
  });

  it('picks up a rotated JWKS file without a restart', async () => {
    const path = join(dir, 'file-rotation-jwks.json');
    const before = await otherKey('before');
    const after = await otherKey('after');
    await writeFile(path, JSON.stringify({ keys: [before.publicJwk] }));
    const v = createTokenVerifier({ jwksFile: path, issuer, audience });
    await expectInvalid(`Bearer ${await token({ privateJwk: after.privateJwk })}`, 'bad_signature', v);
    await writeFile(path, JSON.stringify({ keys: [before.publicJwk, after.publicJwk] }));
    await expect(v.verify(`Bearer ${await token({ privateJwk: after.privateJwk })}`)).resolves.toBeDefined();
    await expect(v.verify(`Bearer ${await token({ privateJwk: before.privateJwk })}`)).resolves.toBeDefined();
  });

  it('refuses configurations that would weaken verification', async () => {
    const base = { jwksFile: keys.jwksPath, issuer, audience };
    expect(() => createTokenVerifier({ ...base, algorithms: ['HS256'] })).toThrow(AuthConfigInvalidError);
    expect(() => createTokenVerifier({ ...base, algorithms: ['none'] })).toThrow(AuthConfigInvalidError);
    expect(() => createTokenVerifier({ ...base, algorithms: [] })).toThrow(AuthConfigInvalidError);
    expect(() => createTokenVerifier({ issuer, audience })).toThrow(AuthConfigInvalidError);
    expect(() => createTokenVerifier({ ...base, jwksUrl: 'http://127.0.0.1/jwks.json' })).toThrow(
      AuthConfigInvalidError,
    );
    expect(() => createTokenVerifier({ ...base, jwksFile: join(dir, 'missing.json') })).toThrow(
      AuthConfigInvalidError,
    );
    expect(() => createTokenVerifier({ ...base, jwksFile: keys.privateKeyPath })).toThrow(
      AuthConfigInvalidError,
    );
    const withPrivate = join(dir, 'jwks-with-private.json');
    await writeFile(withPrivate, JSON.stringify({ keys: [keys.privateJwk] }));
    expect(() => createTokenVerifier({ ...base, jwksFile: withPrivate })).toThrow(/private or symmetric/);
  });

  describe('cache of verified tokens', () => {
    let now = Date.now();
    const clock = () => now;
    beforeEach(() => {
      now = Date.now();
    });

    /**
     * Takes the trusted key out of the verifier's key set: the file is rewritten without it, and a token
     * of an unknown kid makes the verifier reload it. From then on only a cached verification accepts a
     * token signed with the old key.
     */
    async function dropKey(v: TokenVerifier, path: string): Promise<void> {
      const replacement = await otherKey(`replacement-${Math.random()}`);
      await writeFile(path, JSON.stringify({ keys: [replacement.publicJwk] }));
      await expect(
        v.verify(`Bearer ${await token({ privateJwk: replacement.privateJwk })}`),
      ).resolves.toBeDefined();
    }

    it('serves a token seen again from the cache, without the key set', async () => {
      const path = join(dir, 'cache-jwks.json');
      await writeFile(path, JSON.stringify(keys.jwks));
      const v = createTokenVerifier({ jwksFile: path, issuer, audience, now: clock });
      const jwt = await token();
      await expect(v.verify(`Bearer ${jwt}`)).resolves.toMatchObject({ subject: 'alice' });
      await dropKey(v, path);
      await expect(v.verify(`Bearer ${jwt}`)).resolves.toMatchObject({ subject: 'alice' });
      // ...and only for the cache's time to live.
      now += 61_000;
      await expectInvalid(`Bearer ${jwt}`, 'bad_signature', v);
    });

    it('refuses an expired token even though it was verified and cached before', async () => {
      const v = createTokenVerifier({
        jwksFile: keys.jwksPath,
        issuer,
        audience,
        now: clock,
        clockToleranceSec: 0,
        cache: { ttlSec: 3600 },
      });
      const jwt = await token({ expiresInSec: 30 });
      // The token's iat is the real clock's second at issue, which may be after the test clock's reading.
      now = Math.max(now, Date.now());
      await expect(v.verify(`Bearer ${jwt}`)).resolves.toBeDefined();
      now += 31_000;
      await expectInvalid(`Bearer ${jwt}`, 'expired', v);
    });

    it('never caches a rejected token', async () => {
      const v = createTokenVerifier({ jwksFile: keys.jwksPath, issuer, audience, now: clock });
      const early = await token({ notBeforeSec: 60 });
      await expectInvalid(`Bearer ${early}`, 'not_yet_valid', v);
      now += 120_000;
      await expect(v.verify(`Bearer ${early}`)).resolves.toMatchObject({ subject: 'alice' });
      // A bad signature is checked again each time: the same bytes stay refused.
      const forged = await token({ privateJwk: (await otherKey(keys.privateJwk.kid!)).privateJwk });
      await expectInvalid(`Bearer ${forged}`, 'bad_signature', v);
      await expectInvalid(`Bearer ${forged}`, 'bad_signature', v);
    });

    it('keeps at most maxEntries tokens, dropping the least recently used', async () => {
      const path = join(dir, 'cache-bound-jwks.json');
      await writeFile(path, JSON.stringify(keys.jwks));
      const v = createTokenVerifier({
        jwksFile: path,
        issuer,
        audience,
        now: clock,
        cache: { maxEntries: 3 },
      });
      const [a, b, c, d] = await Promise.all([token(), token(), token(), token()]);
      // a is used again, so b is the least recently used when d arrives.
      for (const jwt of [a, b, c, a, d]) await v.verify(`Bearer ${jwt}`);
      await dropKey(v, path); // its own token takes a place too: c goes
      await expect(v.verify(`Bearer ${a}`)).resolves.toBeDefined();
      await expect(v.verify(`Bearer ${d}`)).resolves.toBeDefined();
      await expectInvalid(`Bearer ${b}`, 'bad_signature', v);
    });

    it('does not cache at all with maxEntries 0', async () => {
      const path = join(dir, 'cache-off-jwks.json');
      await writeFile(path, JSON.stringify(keys.jwks));
      const v = createTokenVerifier({ jwksFile: path, issuer, audience, cache: { maxEntries: 0 } });
      const jwt = await token();
      await v.verify(`Bearer ${jwt}`);
      await dropKey(v, path);
      await expectInvalid(`Bearer ${jwt}`, 'bad_signature', v);
    });
  });

  describe('with a JWKS served over HTTP', () => {
    let server: Server;
    let url: string;
    let jwks: JSONWebKeySet;
    let status = 200;
    let fetches = 0;

    beforeAll(async () => {
      server = createServer((req, res) => {
        fetches += 1;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(jwks));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    beforeEach(() => {
      jwks = keys.jwks;
      status = 200;
      fetches = 0;
    });

    it('verifies tokens and fetches the key set once for many requests', async () => {
      const v = createTokenVerifier({ jwksUrl: url, issuer, audience });
      for (let i = 0; i < 3; i += 1) {
        await expect(v.verify(`Bearer ${await token()}`)).resolves.toMatchObject({ subject: 'alice' });
      }
      expect(fetches).toBe(1);
    });

    it('rejects a token signed by a key the endpoint does not publish', async () => {
      const v = createTokenVerifier({ jwksUrl: url, issuer, audience });
      const { privateJwk } = await otherKey('rogue');
      await expectInvalid(`Bearer ${await token({ privateJwk })}`, 'bad_signature', v);
    });

    it('answers 503, not 401, when the key set cannot be fetched', async () => {
      status = 500;
      const v = createTokenVerifier({ jwksUrl: url, issuer, audience });
      const err = await rejection(`Bearer ${await token()}`, v);
      expect(err).toBeInstanceOf(AuthKeysUnavailableError);
      expect(err).toMatchObject({ code: 'AUTH_KEYS_UNAVAILABLE', httpStatus: 503 });
    });

    it('answers 503 when the key set endpoint is unreachable', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const v = createTokenVerifier({ jwksUrl: `http://127.0.0.1:${port}/jwks.json`, issuer, audience });
      expect(await rejection(`Bearer ${await token()}`, v)).toBeInstanceOf(AuthKeysUnavailableError);
    });
  });
});

function importPrivate(jwk: JWK) {
  return importJWK(jwk, 'ES256');
}
