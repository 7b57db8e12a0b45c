import { LRUCache } from 'lru-cache';
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { AuthConfigInvalidError } from './errors/AuthConfigInvalidError';
import { AuthError } from './errors/AuthError';
import { AuthInvalidTokenError } from './errors/AuthInvalidTokenError';
import { AuthKeysUnavailableError } from './errors/AuthKeysUnavailableError';
import { AuthMissingTokenError } from './errors/AuthMissingTokenError';
import { readPublicJwks } from './jwksFile';
import type { Principal } from './principal';

export interface TokenVerifierOptions {
  /** JWKS endpoint of the identity provider; fetched lazily, cached, refetched for an unknown `kid`. */
  jwksUrl?: string;
  /** JWKS on disk (the local stack's `.local/auth/jwks.json`); reread when an unknown `kid` shows up and the file changed. */
  jwksFile?: string;
  issuer: string;
  audience: string;
  /** Asymmetric JWS algorithms only; defaults to {@link DEFAULT_TOKEN_ALGORITHMS}. */
  algorithms?: string[];
  /** Allowed clock skew for `exp`, `nbf` and `iat`; default 30 seconds. */
  clockToleranceSec?: number;
  /**
   * Verified tokens kept to skip the signature check of a token seen again: at most `maxEntries`
   * (least recently used dropped first; default 10,000; 0 = no cache), each until its `exp` or for
   * `ttlSec` (default 60), whichever comes first. A rejected token is never kept.
   */
  cache?: { maxEntries?: number; ttlSec?: number };
  /** Milliseconds since the epoch; tests pass a fixed clock. */
  now?: () => number;
}

export interface TokenVerifier {
  /**
   * Verifies the value of an `Authorization` header and returns the caller.
   * @throws AuthMissingTokenError, AuthInvalidTokenError (401) or AuthKeysUnavailableError (503)
   */
  verify(authorizationHeader: string | undefined): Promise<Principal>;
}

export const DEFAULT_TOKEN_ALGORITHMS: readonly string[] = ['RS256', 'ES256', 'PS256', 'EdDSA'];

// Only asymmetric algorithms: with HMAC a verifier holding public keys could be fooled by a token
// MACed with the public key bytes, and `none` is no signature at all.
const ASYMMETRIC_ALGORITHMS: ReadonlySet<string> = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
]);

const DEFAULT_CLOCK_TOLERANCE_SEC = 30;
// RFC 6750 b64token; anything else cannot be a compact JWS.
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
// Far above any real access token; stops oversized headers before any parsing.
const MAX_TOKEN_LENGTH = 16 * 1024;

/**
 * Builds a verifier for bearer access tokens (JWS-signed JWTs). Checks signature against the JWKS,
 * algorithm allow-list, `iss`, `aud`, `exp` (required), `nbf` and `sub` (required), then maps the
 * claims `scope`/`scp` and `business_units` to a {@link Principal}.
 * @throws AuthConfigInvalidError for a bad configuration (both or neither JWKS source, symmetric algorithm, unreadable file).
 */
export function createTokenVerifier(opts: TokenVerifierOptions): TokenVerifier {
  if (!opts.issuer) throw new AuthConfigInvalidError('issuer is required');
  if (!opts.audience) throw new AuthConfigInvalidError('audience is required');
  const algorithms = [...(opts.algorithms ?? DEFAULT_TOKEN_ALGORITHMS)];
  if (algorithms.length === 0) throw new AuthConfigInvalidError('algorithms must not be empty');
  for (const alg of algorithms) {
    if (!ASYMMETRIC_ALGORITHMS.has(alg)) {
      throw new AuthConfigInvalidError(`algorithm ${alg} is not an allowed asymmetric JWS algorithm`);
    }
  }
  const clockTolerance = opts.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
  if (!Number.isFinite(clockTolerance) || clockTolerance < 0) {
    throw new AuthConfigInvalidError('clockToleranceSec must be a non-negative number');
  }

  const maxEntries = opts.cache?.maxEntries ?? DEFAULT_CACHE_MAX_ENTRIES;
  const ttlMs = (opts.cache?.ttlSec ?? DEFAULT_CACHE_TTL_SEC) * 1000;
  if (!Number.isInteger(maxEntries) || maxEntries < 0 || !Number.isFinite(ttlMs) || ttlMs < 0) {
    throw new AuthConfigInvalidError('cache.maxEntries and cache.ttlSec must be non-negative numbers');
  }
  const now = opts.now ?? Date.now;

  const getKey = keySource(opts);
  const verifyOptions: JWTVerifyOptions = {
    issuer: opts.issuer,
    audience: opts.audience,
    algorithms,
    clockTolerance,
    requiredClaims: ['exp', 'sub'],
  };
  const cache = new VerifiedTokenCache(maxEntries);

  return {
    async verify(authorizationHeader) {
      const token = bearerToken(authorizationHeader);
      const at = now();
      const cached = cache.get(token, at);
      if (cached) return cached;
      let payload: JWTPayload;
      try {
        payload = await verifyJwt(
          token,
          getKey,
          opts.now ? { ...verifyOptions, currentDate: new Date(at) } : verifyOptions,
        );
      } catch (err) {
        throw toAuthError(err);
      }
      const principal = principalFromClaims(payload);
      // Until `exp` itself, not `exp` plus the tolerance: a token past it is checked again by jose.
      if (typeof payload.exp === 'number')
        cache.set(token, principal, Math.min(payload.exp * 1000, at + ttlMs), at);
      return principal;
    },
  };
}

const DEFAULT_CACHE_MAX_ENTRIES = 10_000;
const DEFAULT_CACHE_TTL_SEC = 60;

/**
 * Principals of verified tokens by raw token, at most `maxEntries`, the least recently used evicted first
 * (`lru-cache`: a `Map` evicted through its iterator costs microseconds per eviction once full, decision
 * 0052), each until its own expiry (checked here against the verifier's clock).
 */
class VerifiedTokenCache {
  private readonly entries: LRUCache<string, { principal: Principal; expiresAt: number }> | undefined;

  constructor(maxEntries: number) {
    this.entries = maxEntries > 0 ? new LRUCache({ max: maxEntries }) : undefined;
  }

  get(token: string, at: number): Principal | undefined {
    const entry = this.entries?.get(token);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= at) {
      this.entries!.delete(token);
      return undefined;
    }
    return entry.principal;
  }

  set(token: string, principal: Principal, expiresAt: number, at: number): void {
    if (this.entries === undefined || expiresAt <= at) return;
    this.entries.set(token, { principal, expiresAt });
  }
}

function keySource(opts: TokenVerifierOptions): JWTVerifyGetKey {
  if (opts.jwksUrl !== undefined && opts.jwksFile !== undefined) {
    throw new AuthConfigInvalidError('set either jwksUrl or jwksFile, not both');
  }
  if (opts.jwksUrl !== undefined) return remoteKeySource(opts.jwksUrl);
  if (opts.jwksFile !== undefined) return fileKeySource(opts.jwksFile);
  throw new AuthConfigInvalidError('one of jwksUrl or jwksFile is required');
}

function remoteKeySource(jwksUrl: string): JWTVerifyGetKey {
  let url: URL;
  try {
    url = new URL(jwksUrl);
  } catch (err) {
    throw new AuthConfigInvalidError(`jwksUrl is not a URL: ${jwksUrl}`, { cause: err });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AuthConfigInvalidError(`jwksUrl must be http(s): ${jwksUrl}`);
  }
  const remote = createRemoteJWKSet(url);
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (err) {
      if (isKeySelectionError(err)) throw err;
      throw new AuthKeysUnavailableError({ cause: err });
    }
  };
}

function fileKeySource(path: string): JWTVerifyGetKey {
  const load = (text: string): JWTVerifyGetKey => createLocalJWKSet(readPublicJwks(text, path));
  let loaded: { mtimeMs: number; keys: JWTVerifyGetKey };
  try {
    loaded = { mtimeMs: statSync(path).mtimeMs, keys: load(readFileSync(path, 'utf8')) };
  } catch (err) {
    if (err instanceof AuthConfigInvalidError) throw err;
    throw new AuthConfigInvalidError(`cannot read JWKS file ${path}`, { cause: err });
  }
  return async (header, token) => {
    try {
      return await loaded.keys(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      // An unknown kid after a key rotation: pick up the new file, but only if it actually changed,
      // so a flood of random kids costs a stat each and nothing more.
      const current = await reloadIfChanged(path, loaded.mtimeMs, load);
      if (current === undefined) throw err;
      loaded = current;
      return loaded.keys(header, token);
    }
  };
}

async function reloadIfChanged(
  path: string,
  mtimeMs: number,
  load: (text: string) => JWTVerifyGetKey,
): Promise<{ mtimeMs: number; keys: JWTVerifyGetKey } | undefined> {
  try {
    const info = await stat(path);
    if (info.mtimeMs === mtimeMs) return undefined;
    return { mtimeMs: info.mtimeMs, keys: load(await readFile(path, 'utf8')) };
  } catch (err) {
    throw new AuthKeysUnavailableError({ cause: err });
  }
}

function isKeySelectionError(err: unknown): boolean {
  return (
    err instanceof errors.JWKSNoMatchingKey ||
    err instanceof errors.JWKSMultipleMatchingKeys ||
    err instanceof errors.JOSENotSupported
  );
}

function bearerToken(header: string | undefined): string {
  const value = header?.trim() ?? '';
  if (value === '') throw new AuthMissingTokenError();
  const [scheme = '', ...rest] = value.split(/\s+/);
  // Other schemes (Basic, ...) carry no bearer token: RFC 6750 answers with the bare challenge.
  if (scheme.toLowerCase() !== 'bearer') throw new AuthMissingTokenError();
  const token = rest.join(' ');
  if (rest.length !== 1 || token.length > MAX_TOKEN_LENGTH || !BEARER_TOKEN.test(token)) {
    throw new AuthInvalidTokenError('malformed');
  }
  return token;
}

async function verifyJwt(
  token: string,
  getKey: JWTVerifyGetKey,
  options: JWTVerifyOptions,
): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, getKey, options)).payload;
  } catch (err) {
    if (!(err instanceof errors.JWKSMultipleMatchingKeys)) throw err;
    // A token without kid against a JWKS with several candidate keys (during a rotation):
    // jose leaves trying each candidate to the caller.
    for await (const key of err) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (inner) {
        if (inner instanceof errors.JWSSignatureVerificationFailed) continue;
        throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

function toAuthError(err: unknown): unknown {
  if (err instanceof AuthError) return err;
  const invalid = (reason: ConstructorParameters<typeof AuthInvalidTokenError>[0]) =>
    new AuthInvalidTokenError(reason, { cause: err });
  if (err instanceof errors.JWTExpired) return invalid('expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return invalid('wrong_issuer');
    if (err.claim === 'aud') return invalid('wrong_audience');
    if ((err.claim === 'nbf' || err.claim === 'iat') && err.reason === 'check_failed') {
      return invalid('not_yet_valid');
    }
    return invalid('malformed');
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return invalid('alg_not_allowed');
  if (err instanceof errors.JWSSignatureVerificationFailed) return invalid('bad_signature');
  // A kid we do not know means a key we do not trust.
  if (err instanceof errors.JWKSNoMatchingKey) return invalid('bad_signature');
  if (err instanceof errors.JOSEError) return invalid('malformed');
  return err;
}

function principalFromClaims(payload: JWTPayload): Principal {
  const malformed = () => new AuthInvalidTokenError('malformed');
  const subject = payload.sub;
  if (typeof subject !== 'string' || subject === '') throw malformed();

  const scopes = scopesFromClaims(payload.scope, payload['scp']);
  if (scopes === undefined) throw malformed();

  const businessUnits = businessUnitsFromClaim(payload['business_units']);
  if (businessUnits === undefined) throw malformed();

  const principal: { -readonly [K in keyof Principal]: Principal[K] } = { subject, scopes, businessUnits };
  if (payload.jti !== undefined) {
    if (typeof payload.jti !== 'string') throw malformed();
    principal.tokenId = payload.jti;
  }
  return principal;
}

function scopesFromClaims(scope: unknown, scp: unknown): Set<string> | undefined {
  const claim = scope ?? scp;
  if (claim === undefined) return new Set();
  if (typeof claim === 'string') return new Set(claim.split(' ').filter((s) => s !== ''));
  if (Array.isArray(claim) && claim.every((s): s is string => typeof s === 'string' && s !== '')) {
    return new Set(claim);
  }
  return undefined;
}

function businessUnitsFromClaim(claim: unknown): Set<string> | '*' | undefined {
  if (claim === undefined) return new Set();
  if (claim === '*') return '*';
  if (!Array.isArray(claim) || !claim.every((s): s is string => typeof s === 'string' && s !== '')) {
    return undefined;
  }
  return claim.includes('*') ? '*' : new Set(claim);
}
