import { mkdtemp, readFile, rm, stat, unlink, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, CompactSign, compactVerify, createLocalJWKSet, importJWK } from 'jose';
import { ensureCallbackKeys, ensureLocalKeys } from './ensureLocalKeys';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crs-auth-keys-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ensureLocalKeys', () => {
  it('creates an owner-only ES256 private key and a public JWKS whose kid is the thumbprint', async () => {
    const keys = await ensureLocalKeys(join(dir, 'auth'));
    expect(keys.privateKeyPath).toBe(join(dir, 'auth', 'signing-key.private.jwk.json'));
    expect(keys.jwksPath).toBe(join(dir, 'auth', 'jwks.json'));
    expect((await stat(keys.privateKeyPath)).mode & 0o777).toBe(0o600);

    const onDisk = JSON.parse(await readFile(keys.jwksPath, 'utf8'));
    expect(onDisk).toEqual(keys.jwks);
    expect(onDisk.keys).toHaveLength(1);
    const [pub] = onDisk.keys;
    expect(pub).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: keys.privateJwk.kid,
    });
    expect(pub.d).toBeUndefined();
    expect(pub.kid).toBe(await calculateJwkThumbprint(pub));

    // The pair belongs together: what the private key signs, the JWKS verifies.
    const jws = await new CompactSign(new TextEncoder().encode('hello'))
      .setProtectedHeader({ alg: 'ES256', kid: pub.kid })
      .sign(await importJWK(keys.privateJwk, 'ES256'));
    await expect(compactVerify(jws, createLocalJWKSet(onDisk))).resolves.toBeDefined();
  });

  it('reuses the existing key on later calls', async () => {
    const first = await ensureLocalKeys(dir);
    const second = await ensureLocalKeys(dir);
    expect(second.privateJwk).toEqual(first.privateJwk);
    expect(second.jwks).toEqual(first.jwks);
  });

  it('hands every concurrent caller the same key', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => ensureLocalKeys(dir)));
    expect(new Set(results.map((r) => r.privateJwk.kid)).size).toBe(1);
    const onDisk = JSON.parse(await readFile(join(dir, 'signing-key.private.jwk.json'), 'utf8'));
    expect(onDisk.kid).toBe(results[0]!.privateJwk.kid);
  });

  it('rebuilds a lost JWKS from the private key and tightens a widened file mode', async () => {
    const first = await ensureLocalKeys(dir);
    await unlink(first.jwksPath);
    await chmod(first.privateKeyPath, 0o644);
    const second = await ensureLocalKeys(dir);
    expect(JSON.parse(await readFile(second.jwksPath, 'utf8'))).toEqual(first.jwks);
    expect((await stat(first.privateKeyPath)).mode & 0o777).toBe(0o600);
  });

  it('refuses a private key file that is not an ES256 JWK', async () => {
    await writeFile(join(dir, 'signing-key.private.jwk.json'), '{"kty":"oct","k":"c2VjcmV0"}');
    await expect(ensureLocalKeys(dir)).rejects.toMatchObject({ code: 'AUTH_CONFIG_INVALID' });
  });
});

describe('ensureCallbackKeys', () => {
  it('keeps the callback signing key apart from the token signing key', async () => {
    const tokens = await ensureLocalKeys(dir);
    const callbacks = await ensureCallbackKeys(dir);
    expect(callbacks.privateKeyPath).toBe(join(dir, 'callback-signing.private.jwk.json'));
    expect(callbacks.jwksPath).toBe(join(dir, 'callback-jwks.json'));
    expect(callbacks.privateJwk.kid).not.toBe(tokens.privateJwk.kid);
    expect((await stat(callbacks.privateKeyPath)).mode & 0o777).toBe(0o600);
    expect((await ensureCallbackKeys(dir)).privateJwk).toEqual(callbacks.privateJwk);
  });
});
