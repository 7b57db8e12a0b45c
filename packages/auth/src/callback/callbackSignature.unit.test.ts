import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import {
  base64url,
  CompactSign,
  compactVerify,
  createLocalJWKSet,
  exportJWK,
  importJWK,
  type JSONWebKeySet,
  type JWK,
} from 'jose';
import { CallbackSignatureInvalidError } from '../errors/CallbackSignatureInvalidError';
import { ensureCallbackKeys, type LocalKeyPair } from '../keys/ensureLocalKeys';
import { callbackSigningInput, signCallback, verifyCallback } from './callbackSignature';

const body = Buffer.from(JSON.stringify({ communicationNumber: 'C-1', riskLevel: 'HIGH' }));
const id = '7f1c1d1e-5d1a-4d0e-9a55-2f1f3c1b2a10';
const timestamp = 1_700_000_000;

let dir: string;
let keys: LocalKeyPair;
let other: LocalKeyPair;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crs-auth-callback-'));
  keys = await ensureCallbackKeys(join(dir, 'ours'));
  other = await ensureCallbackKeys(join(dir, 'theirs'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function reason(promise: Promise<void>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(CallbackSignatureInvalidError);
    expect(err).toMatchObject({ code: 'CALLBACK_SIGNATURE_INVALID' });
    return (err as CallbackSignatureInvalidError).reason;
  }
  throw new Error('expected the callback to be rejected');
}

describe('callback signatures', () => {
  it('signs with a detached JWS that a receiver verifies', async () => {
    const headers = await signCallback({ privateJwk: keys.privateJwk, body, timestamp, id });
    expect(headers['ce-id']).toBe(id);
    expect(headers['x-crs-timestamp']).toBe(String(timestamp));
    expect(headers['x-crs-signature']).toMatch(/^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);
    await expect(
      verifyCallback({ jwks: keys.jwks, headers, body, now: timestamp + 10 }),
    ).resolves.toBeUndefined();
  });

  it('is a plain JWS over the documented string, verifiable without this package', async () => {
    const headers = await signCallback({
      privateJwk: keys.privateJwk,
      body: body.toString('utf8'),
      timestamp,
      id,
    });
    const [h, , s] = headers['x-crs-signature']!.split('.');
    const input = callbackSigningInput(id, timestamp, body);
    const { payload, protectedHeader } = await compactVerify(
      `${h}.${base64url.encode(input)}.${s}`,
      createLocalJWKSet(keys.jwks),
    );
    expect(new TextDecoder().decode(payload)).toMatch(
      new RegExp(`^${id}\\.${timestamp}\\.[A-Za-z0-9_-]{43}$`),
    );
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: keys.privateJwk.kid });
  });

  it("writes the same protected header as jose's CompactSign, and a signature jose verifies, for every ECDSA size", async () => {
    for (const [alg, namedCurve] of [
      ['ES256', 'P-256'],
      ['ES384', 'P-384'],
      ['ES512', 'P-521'],
    ] as const) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
      const privateJwk: JWK = { ...(await exportJWK(privateKey)), alg, kid: `k-${alg}` };
      const jwks = { keys: [{ ...(await exportJWK(publicKey)), alg, kid: `k-${alg}` }] };
      const headers = await signCallback({ privateJwk, body, timestamp, id });
      const input = new TextEncoder().encode(callbackSigningInput(id, timestamp, body));
      const byJose = await new CompactSign(input)
        .setProtectedHeader({ alg, kid: `k-${alg}` })
        .sign(await importJWK(privateJwk, alg));
      expect(headers['x-crs-signature']!.split('.')[0]).toBe(byJose.split('.')[0]);
      await expect(
        verifyCallback({ jwks, headers, body, now: timestamp, algorithms: [alg] }),
      ).resolves.toBeUndefined();
    }
  });

  it('signs with a key of another algorithm through jose (EdDSA)', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const privateJwk: JWK = { ...(await exportJWK(privateKey)), alg: 'EdDSA', kid: 'k-ed' };
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), alg: 'EdDSA', kid: 'k-ed' }] };
    const headers = await signCallback({ privateJwk, body, timestamp, id });
    await expect(
      verifyCallback({ jwks, headers, body, now: timestamp, algorithms: ['EdDSA'] }),
    ).resolves.toBeUndefined();
    // A receiver that allows only ES256 (docs/callbacks.md) refuses it.
    expect(await reason(verifyCallback({ jwks, headers, body, now: timestamp }))).toBe('alg_not_allowed');
  });

  it('rejects a tampered body', async () => {
    const headers = await signCallback({ privateJwk: keys.privateJwk, body, timestamp, id });
    const tampered = Buffer.from(body.toString('utf8').replace('HIGH', 'LOW'));
    expect(await reason(verifyCallback({ jwks: keys.jwks, headers, body: tampered, now: timestamp }))).toBe(
      'bad_signature',
    );
  });

  it('rejects the signature of one delivery reused for another id', async () => {
    const headers = await signCallback({ privateJwk: keys.privateJwk, body, timestamp, id });
    const moved = { ...headers, 'ce-id': 'another-delivery' };
    expect(await reason(verifyCallback({ jwks: keys.jwks, headers: moved, body, now: timestamp }))).toBe(
      'bad_signature',
    );
  });

  it('rejects a replay with an old timestamp, whether or not the timestamp header was rewritten', async () => {
    const headers = await signCallback({ privateJwk: keys.privateJwk, body, timestamp, id });
    const later = timestamp + 301;
    expect(
      await reason(verifyCallback({ jwks: keys.jwks, headers, body, now: later, toleranceSec: 300 })),
    ).toBe('timestamp_out_of_tolerance');
    const refreshed = { ...headers, 'x-crs-timestamp': String(later) };
    expect(await reason(verifyCallback({ jwks: keys.jwks, headers: refreshed, body, now: later }))).toBe(
      'bad_signature',
    );
  });

  it('rejects a signature by a key outside the JWKS', async () => {
    const headers = await signCallback({ privateJwk: other.privateJwk, body, timestamp, id });
    expect(await reason(verifyCallback({ jwks: keys.jwks, headers, body, now: timestamp }))).toBe(
      'unknown_key',
    );
    const spoofed = await signCallback({
      privateJwk: { ...other.privateJwk, kid: keys.privateJwk.kid! },
      body,
      timestamp,
      id,
    });
    expect(await reason(verifyCallback({ jwks: keys.jwks, headers: spoofed, body, now: timestamp }))).toBe(
      'bad_signature',
    );
  });

  it('accepts either key while a rotation publishes both', async () => {
    const both: JSONWebKeySet = { keys: [...keys.jwks.keys, ...other.jwks.keys] };
    for (const signer of [keys, other]) {
      const headers = await signCallback({ privateJwk: signer.privateJwk, body, timestamp, id });
      await expect(verifyCallback({ jwks: both, headers, body, now: timestamp })).resolves.toBeUndefined();
    }
  });

  it('rejects missing, malformed and repeated headers', async () => {
    const headers = await signCallback({ privateJwk: keys.privateJwk, body, timestamp, id });
    const { 'x-crs-signature': _s, ...unsigned } = headers;
    const verify = (h: Record<string, string | string[]>) =>
      reason(verifyCallback({ jwks: keys.jwks, headers: h, body, now: timestamp }));
    expect(await verify(unsigned)).toBe('missing_header');
    expect(await verify({ ...headers, 'x-crs-signature': [headers['x-crs-signature']!, 'x..y'] })).toBe(
      'missing_header',
    );
    expect(await verify({ ...headers, 'x-crs-timestamp': '17e8' })).toBe('malformed');
    expect(
      await verify({ ...headers, 'x-crs-signature': headers['x-crs-signature']!.replace('..', '.x.') }),
    ).toBe('malformed');
  });

  it('matches header names case-insensitively', async () => {
    const headers = await signCallback({ privateJwk: keys.privateJwk, body, timestamp, id });
    const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(
      verifyCallback({ jwks: keys.jwks, headers: shouted, body, now: timestamp }),
    ).resolves.toBeUndefined();
  });

  it('refuses to sign ids that cannot travel in a header', async () => {
    await expect(
      signCallback({ privateJwk: keys.privateJwk, body, timestamp, id: 'a\r\nb' }),
    ).rejects.toThrow(TypeError);
    await expect(signCallback({ privateJwk: keys.privateJwk, body, timestamp: 1.5, id })).rejects.toThrow(
      TypeError,
    );
  });
});
