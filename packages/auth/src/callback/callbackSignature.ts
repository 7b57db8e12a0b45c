import {
  createHash,
  createPrivateKey,
  sign as signBytes,
  type JsonWebKey as CryptoJwk,
  type KeyObject,
} from 'node:crypto';
import {
  base64url,
  CompactSign,
  createLocalJWKSet,
  errors,
  flattenedVerify,
  importJWK,
  type JSONWebKeySet,
  type JWK,
} from 'jose';
import {
  CallbackSignatureInvalidError,
  type CallbackSignatureInvalidReason,
} from '../errors/CallbackSignatureInvalidError';

/** Names of the HTTP headers that carry a callback signature (lower case, as Node reports them). */
export const CallbackHeaders = {
  signature: 'x-crs-signature',
  timestamp: 'x-crs-timestamp',
  id: 'ce-id',
} as const;

export const DEFAULT_CALLBACK_TOLERANCE_SEC = 300;

// Visible ASCII only: the id travels in a header and is joined with '.', which the timestamp
// (digits only) can never contain, so `id.timestamp` stays unambiguous.
const CALLBACK_ID = /^[\x21-\x7e]{1,255}$/;
const TIMESTAMP = /^\d{1,12}$/;

/**
 * The string that is signed: `${id}.${timestamp}.${base64url(sha256(body))}`. Binding id and
 * timestamp stops an old or foreign signature being replayed with another delivery.
 */
export function callbackSigningInput(id: string, timestamp: number, body: Uint8Array | string): string {
  const digest = createHash('sha256').update(body).digest();
  return `${id}.${timestamp}.${base64url.encode(digest)}`;
}

export interface SignCallbackOptions {
  /** Private JWK with `kid`, as written by {@link ensureCallbackKeys}. */
  privateJwk: JWK;
  /** The exact bytes sent as the request body. */
  body: Uint8Array | string;
  /** Unix seconds of this delivery attempt. */
  timestamp: number;
  /** Delivery id, also sent as `ce-id`; a receiver deduplicates on it. */
  id: string;
}

// Importing the JWK costs more than the signature itself: each key object is imported once. Keyed by
// the JWK object (a sender keeps one) and the algorithm; a WeakMap lets a dropped key go.
const importedKeys = new WeakMap<JWK, Map<string, ReturnType<typeof importJWK>>>();

function importedKey(jwk: JWK, alg: string): ReturnType<typeof importJWK> {
  const byAlg = importedKeys.get(jwk) ?? new Map<string, ReturnType<typeof importJWK>>();
  importedKeys.set(jwk, byAlg);
  let key = byAlg.get(alg);
  if (!key) {
    key = importJWK(jwk, alg);
    // A failed import is not remembered: the next signature tries again.
    key.catch(() => byAlg.delete(alg));
    byAlg.set(alg, key);
  }
  return key;
}

/** The digest of each ECDSA JWS algorithm (RFC 7518 section 3.4). */
const ECDSA_DIGESTS: Readonly<Record<string, string>> = { ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

interface EcdsaSigner {
  key: KeyObject;
  digest: string;
  /** BASE64URL(UTF8(protected header)), the same for every signature of this key. */
  protectedHeader: string;
}
const ecdsaSigners = new WeakMap<JWK, Map<string, EcdsaSigner>>();

function ecdsaSigner(jwk: JWK, alg: string, kid: string): EcdsaSigner | undefined {
  const digest = ECDSA_DIGESTS[alg];
  if (digest === undefined) return undefined;
  const byAlg = ecdsaSigners.get(jwk) ?? new Map<string, EcdsaSigner>();
  ecdsaSigners.set(jwk, byAlg);
  let signer = byAlg.get(alg);
  if (!signer) {
    signer = {
      key: createPrivateKey({ key: jwk as CryptoJwk, format: 'jwk' }),
      digest,
      // The header jose's CompactSign writes: {"alg", "kid"} in that order.
      protectedHeader: base64url.encode(JSON.stringify({ alg, kid })),
    };
    byAlg.set(alg, signer);
  }
  return signer;
}

/**
 * Signs one callback delivery. Returns the headers to add to the request: `x-crs-signature` is a
 * compact JWS with detached payload (`<header>..<signature>`, RFC 7515 appendix F) over
 * {@link callbackSigningInput}.
 *
 * ECDSA keys (ES256, the default, and ES384/ES512) are signed here with node:crypto's synchronous
 * `sign` rather than jose's `CompactSign`: jose signs through a promisified `crypto.sign`, which on
 * Node 20 costs about 60 % more CPU per ES256 signature (a libuv job and its wake-up) and still blocks
 * the event loop for most of the signature's time (docs/performance.md, "The twenty-first stop's run").
 * The JWS is byte-for-byte the construction jose makes (RFC 7515 section 5.1, R || S per RFC 7518), and
 * receivers verify it with jose (unit tests). Other algorithms go through jose.
 */
export async function signCallback(opts: SignCallbackOptions): Promise<Record<string, string>> {
  if (!CALLBACK_ID.test(opts.id)) throw new TypeError('callback id must be 1-255 visible ASCII characters');
  if (!Number.isSafeInteger(opts.timestamp) || opts.timestamp < 0) {
    throw new TypeError('callback timestamp must be a non-negative integer (unix seconds)');
  }
  const { kid } = opts.privateJwk;
  if (kid === undefined) throw new TypeError('callback signing key needs a kid');
  const alg = opts.privateJwk.alg ?? 'ES256';
  const input = callbackSigningInput(opts.id, opts.timestamp, opts.body);
  const signer = ecdsaSigner(opts.privateJwk, alg, kid);
  let signature: string;
  if (signer) {
    const signingInput = `${signer.protectedHeader}.${base64url.encode(input)}`;
    const bytes = signBytes(signer.digest, Buffer.from(signingInput), {
      key: signer.key,
      dsaEncoding: 'ieee-p1363',
    });
    signature = `${signer.protectedHeader}..${base64url.encode(bytes)}`;
  } else {
    const key = await importedKey(opts.privateJwk, alg);
    const jws = await new CompactSign(new TextEncoder().encode(input))
      .setProtectedHeader({ alg, kid })
      .sign(key);
    const [protectedHeader, , sig] = jws.split('.');
    signature = `${protectedHeader}..${sig}`;
  }
  return {
    [CallbackHeaders.signature]: signature,
    [CallbackHeaders.timestamp]: String(opts.timestamp),
    [CallbackHeaders.id]: opts.id,
  };
}

export type CallbackRequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyCallbackOptions {
  /** Public JWKS of the sender (`callback-jwks.json`); may hold several keys during a rotation. */
  jwks: JSONWebKeySet;
  /** Request headers; names are matched case-insensitively. */
  headers: CallbackRequestHeaders;
  /** The raw request body, before any JSON parsing. */
  body: Uint8Array | string;
  /** How far the signed timestamp may be from `now`; default 300 seconds. */
  toleranceSec?: number;
  /** Unix seconds; default the current time. */
  now?: number;
  /** Default `['ES256']`. */
  algorithms?: string[];
}

/**
 * Checks a received callback: all three headers present, timestamp within tolerance, and a valid
 * signature by a key of `jwks` over this id, timestamp and body.
 * @throws CallbackSignatureInvalidError with a `reason`.
 */
export async function verifyCallback(opts: VerifyCallbackOptions): Promise<void> {
  const keys = createLocalJWKSet(opts.jwks);
  const signatureHeader = header(opts.headers, CallbackHeaders.signature);
  const timestampHeader = header(opts.headers, CallbackHeaders.timestamp);
  const id = header(opts.headers, CallbackHeaders.id);
  if (signatureHeader === undefined || timestampHeader === undefined || id === undefined) {
    throw new CallbackSignatureInvalidError('missing_header');
  }
  if (!TIMESTAMP.test(timestampHeader) || !CALLBACK_ID.test(id))
    throw new CallbackSignatureInvalidError('malformed');
  const timestamp = Number(timestampHeader);
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (opts.toleranceSec ?? DEFAULT_CALLBACK_TOLERANCE_SEC)) {
    throw new CallbackSignatureInvalidError('timestamp_out_of_tolerance');
  }
  const parts = signatureHeader.split('.');
  if (parts.length !== 3 || parts[1] !== '') throw new CallbackSignatureInvalidError('malformed');
  const [protectedHeader = '', , signature = ''] = parts;

  const payload = base64url.encode(callbackSigningInput(id, timestamp, opts.body));
  try {
    await flattenedVerify({ protected: protectedHeader, payload, signature }, keys, {
      algorithms: opts.algorithms ?? ['ES256'],
    });
  } catch (err) {
    throw new CallbackSignatureInvalidError(reasonOf(err), { cause: err });
  }
}

function header(headers: CallbackRequestHeaders, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') return value;
    // A repeated signature header is ambiguous; refuse rather than pick one.
    return value?.length === 1 ? value[0] : undefined;
  }
  return undefined;
}

function reasonOf(err: unknown): CallbackSignatureInvalidReason {
  if (err instanceof errors.JOSEAlgNotAllowed) return 'alg_not_allowed';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) {
    return 'unknown_key';
  }
  return 'malformed';
}
