import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';

export interface IssueTokenOptions {
  /** Private JWK with `kid` and `alg`, as written by {@link ensureLocalKeys}. */
  privateJwk: JWK;
  issuer: string;
  audience: string;
  /** Default `local-operator`. */
  subject?: string;
  scopes: readonly string[];
  /** `'*'` grants every business unit: give it to operator tokens only. */
  businessUnits: readonly string[] | '*';
  /** Lifetime from now; default 3600. */
  expiresInSec?: number;
  /** Validity starts this many seconds from now; default 0. */
  notBeforeSec?: number;
  /** Issue time in unix seconds; default the current time. */
  now?: number;
}

/**
 * Signs an access token for the local stack and tests, in the format {@link createTokenVerifier}
 * expects: claims `scope` (space separated) and `business_units` (array, `["*"]` for all).
 */
export async function issueToken(opts: IssueTokenOptions): Promise<string> {
  const alg = opts.privateJwk.alg ?? 'ES256';
  const key = await importJWK(opts.privateJwk, alg);
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const header: { alg: string; typ: string; kid?: string } = { alg, typ: 'JWT' };
  if (opts.privateJwk.kid !== undefined) header.kid = opts.privateJwk.kid;
  return new SignJWT({
    scope: opts.scopes.join(' '),
    business_units: opts.businessUnits === '*' ? ['*'] : [...opts.businessUnits],
  })
    .setProtectedHeader(header)
    .setIssuer(opts.issuer)
    .setAudience(opts.audience)
    .setSubject(opts.subject ?? 'local-operator')
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setNotBefore(now + (opts.notBeforeSec ?? 0))
    .setExpirationTime(now + (opts.expiresInSec ?? 3600))
    .sign(key);
}
