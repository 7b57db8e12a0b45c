import { randomUUID } from 'node:crypto';
import { chmod, link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JSONWebKeySet, type JWK } from 'jose';
import { AuthConfigInvalidError } from '../errors/AuthConfigInvalidError';

/** A signing key pair on disk: the private JWK and the JWKS that publishes its public half. */
export interface LocalKeyPair {
  readonly privateJwk: JWK;
  readonly jwks: JSONWebKeySet;
  readonly privateKeyPath: string;
  readonly jwksPath: string;
}

const ALG = 'ES256';

/**
 * Makes sure `<dir>/signing-key.private.jwk.json` (mode 0600) and `<dir>/jwks.json` exist and returns
 * them; creates an ES256 pair on first use and reuses it afterwards. For the local stack and tests,
 * where this service acts as its own token issuer (dir `.local/auth`); production uses the
 * identity provider's JWKS instead.
 */
export function ensureLocalKeys(dir: string): Promise<LocalKeyPair> {
  return ensureKeyPair(dir, 'signing-key.private.jwk.json', 'jwks.json');
}

/**
 * Like {@link ensureLocalKeys} for the separate key that signs outgoing callbacks:
 * `<dir>/callback-signing.private.jwk.json` and `<dir>/callback-jwks.json`.
 */
export function ensureCallbackKeys(dir: string): Promise<LocalKeyPair> {
  return ensureKeyPair(dir, 'callback-signing.private.jwk.json', 'callback-jwks.json');
}

async function ensureKeyPair(dir: string, privateName: string, jwksName: string): Promise<LocalKeyPair> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const privateKeyPath = join(dir, privateName);
  const jwksPath = join(dir, jwksName);

  const privateJwk = (await readPrivateJwk(privateKeyPath)) ?? (await createPrivateJwk(privateKeyPath));
  const jwks: JSONWebKeySet = { keys: [publicJwk(privateJwk)] };
  // Derived from the private key every time, so a lost or stale jwks.json heals itself.
  const content = `${JSON.stringify(jwks, null, 2)}\n`;
  const existing = await readFile(jwksPath, 'utf8').catch(() => undefined);
  if (existing !== content) await writeAtomically(jwksPath, content, 0o644);
  return { privateJwk, jwks, privateKeyPath, jwksPath };
}

async function readPrivateJwk(path: string): Promise<JWK | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const jwk = parsePrivateJwk(text, path);
  // Someone may have copied the file with a wider mode; a signing key stays owner-only.
  await chmod(path, 0o600);
  return jwk;
}

function parsePrivateJwk(text: string, path: string): JWK {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch (err) {
    throw new AuthConfigInvalidError(`private key ${path} is not JSON`, { cause: err });
  }
  if (
    jwk.kty !== 'EC' ||
    jwk.crv !== 'P-256' ||
    typeof jwk.d !== 'string' ||
    typeof jwk.x !== 'string' ||
    typeof jwk.y !== 'string' ||
    typeof jwk.kid !== 'string'
  ) {
    throw new AuthConfigInvalidError(`private key ${path} is not an ES256 private JWK with a kid`);
  }
  return jwk;
}

async function createPrivateJwk(path: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  const privateJwk: JWK = { ...jwk, kid, alg: ALG, use: 'sig' };
  // link() refuses to replace an existing file, so when two processes race (CLI and service both
  // starting) exactly one key wins and the loser reads it, instead of one overwriting the other.
  const temp = `${path}.${randomUUID()}.tmp`;
  await writeFile(temp, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const winner = await readPrivateJwk(path);
    if (winner === undefined) throw err;
    return winner;
  } finally {
    await unlink(temp);
  }
  return privateJwk;
}

function publicJwk(privateJwk: JWK): JWK {
  const { kty, crv, x, y, kid } = privateJwk;
  return { kty, crv, x, y, kid, alg: ALG, use: 'sig' };
}

async function writeAtomically(path: string, content: string, mode: number): Promise<void> {
  const temp = `${path}.${randomUUID()}.tmp`;
  await writeFile(temp, content, { mode, flag: 'wx' });
  try {
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}
