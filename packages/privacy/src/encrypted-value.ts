/**
 * The wire form of one encrypted field value (schemas/privacy/encrypted-value.v1.schema.json):
 *
 *   crs:enc:1:<keyId>:<iv>:<tag>:<ciphertext>
 *
 * `1` is the format version, `keyId` names the customer's data key (a new key after an erasure has a
 * new id), `iv` is the 96-bit GCM nonce, `tag` the 128-bit authentication tag, `ciphertext` the
 * AES-256-GCM encryption of the value's JSON text; the binary parts are base64url without padding.
 * A string, not an object: it fits every string-typed field, a MongoDB document stores it as is
 * (no `$`-prefixed keys), and it can never be mistaken for a nested record.
 */
export const ENCRYPTED_VALUE_PREFIX = 'crs:enc:1:';

/** Mirrors the pattern of schemas/privacy/encrypted-value.v1.schema.json (a unit test keeps them equal). */
export const ENCRYPTED_VALUE_PATTERN =
  /^crs:enc:1:[A-Za-z0-9_-]{1,64}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/;

export interface EncryptedValueParts {
  keyId: string;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

/** True for any string that claims to be an encrypted value (well-formed or not). */
export function looksEncrypted(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(ENCRYPTED_VALUE_PREFIX);
}

export function formatEncryptedValue(parts: EncryptedValueParts): string {
  return `${ENCRYPTED_VALUE_PREFIX}${parts.keyId}:${b64u(parts.iv)}:${b64u(parts.tag)}:${b64u(parts.ciphertext)}`;
}

/** The parts of a well-formed encrypted value; undefined when it is malformed. */
export function parseEncryptedValue(value: string): EncryptedValueParts | undefined {
  if (!ENCRYPTED_VALUE_PATTERN.test(value)) return undefined;
  const [keyId, iv, tag, ciphertext] = value.slice(ENCRYPTED_VALUE_PREFIX.length).split(':') as [
    string,
    string,
    string,
    string,
  ];
  const parts = {
    keyId,
    iv: Buffer.from(iv, 'base64url'),
    tag: Buffer.from(tag, 'base64url'),
    ciphertext: Buffer.from(ciphertext, 'base64url'),
  };
  return parts.iv.length === 12 && parts.tag.length === 16 && parts.ciphertext.length > 0 ? parts : undefined;
}

export function b64u(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/**
 * The sealed form of a record's personal values (decision 0054): every value is replaced in place by a
 * placeholder `crs:sealed:<i>` (the i-th value of its path pattern) and all of them are encrypted together,
 * as one JSON object `{ "<path pattern>": [value, ...] }`, into one encrypted value (the format above)
 * at the record's `SEALED_FIELD`, bound to that field name. One AES-GCM operation per record instead of one
 * per value; the placeholders keep which fields are present in plain, so an erased record still shows
 * each of them as null.
 */
export const SEALED_FIELD = 'sealedPersonalData';
export const SEALED_PLACEHOLDER_PREFIX = 'crs:sealed:';

/** Mirrors the placeholder's pattern in schemas/privacy/sealed-personal-data.v1.schema.json. */
export const SEALED_PLACEHOLDER_PATTERN = /^crs:sealed:(0|[1-9][0-9]{0,5})$/;

export function sealedPlaceholder(index: number): string {
  return `${SEALED_PLACEHOLDER_PREFIX}${index}`;
}

/** True for any string that claims to stand for a sealed value (well-formed or not). */
export function looksSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(SEALED_PLACEHOLDER_PREFIX);
}

/** The index of a well-formed placeholder; undefined when it is malformed. */
export function sealedIndex(value: string): number | undefined {
  const m = SEALED_PLACEHOLDER_PATTERN.exec(value);
  return m ? Number(m[1]) : undefined;
}
