import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getValidator } from '@crs/contracts';
import { ENCRYPTED_VALUE_PATTERN, ENCRYPTED_VALUE_PREFIX, parseEncryptedValue } from './encrypted-value';
import { decryptValue, encryptValue, type DataKey } from './field-cipher';

const key = (): DataKey => ({ keyId: randomBytes(9).toString('base64url'), key: randomBytes(32) });
const A = 'BU1:C-1';
const B = 'BU1:C-2';

/** Flips one bit of one base64url part (3 = keyId, 4 = iv, 5 = tag, 6 = ciphertext) of an encrypted value. */
function tamper(value: string, part: 3 | 4 | 5 | 6): string {
  const parts = value.split(':');
  const bytes = Buffer.from(parts[part]!, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join(':');
}

describe('field cipher (AES-256-GCM per customer and field)', () => {
  const k = key();

  it('round-trips any JSON value: strings, numbers, booleans, arrays, objects', () => {
    for (const value of ['Anna', 'Ärger ßüd 山田 太郎', '', 0, 12.5, false, ['a', 'b'], { n: 'x', d: [1] }]) {
      const encrypted = encryptValue(k, A, 'firstName', value);
      expect(decryptValue(k, A, 'firstName', encrypted)).toEqual({ status: 'ok', value });
    }
  });

  it('writes the versioned, self-describing format of schemas/privacy/encrypted-value.v1 with a fresh IV every time', () => {
    const one = encryptValue(k, A, 'firstName', 'Anna');
    const two = encryptValue(k, A, 'firstName', 'Anna');
    expect(one.startsWith(`${ENCRYPTED_VALUE_PREFIX}${k.keyId}:`)).toBe(true);
    expect(one).not.toEqual(two);
    expect(parseEncryptedValue(one)!.iv).not.toEqual(parseEncryptedValue(two)!.iv);
    expect(one).not.toContain('"Anna"');
    const schema = JSON.parse(
      readFileSync(join(__dirname, '../../../schemas/privacy/encrypted-value.v1.schema.json'), 'utf8'),
    ) as { $id: string; pattern: string };
    expect(schema.pattern).toBe(ENCRYPTED_VALUE_PATTERN.source);
    const validate = getValidator(schema.$id);
    expect(validate(one)).toBe(true);
    expect(validate('Anna')).toBe(false);
  });

  it('detects tampering with the IV, the tag or the ciphertext', () => {
    const encrypted = encryptValue(k, A, 'nationalCode', '38001010000');
    for (const part of [4, 5, 6] as const) {
      expect(decryptValue(k, A, 'nationalCode', tamper(encrypted, part))).toEqual({
        status: 'invalid',
        reason: 'unauthenticated',
      });
    }
    // A changed key id names no key of this customer: it reads as erased, never as plaintext.
    expect(decryptValue(k, A, 'nationalCode', tamper(encrypted, 3))).toEqual({ status: 'erased' });
  });

  it('refuses a value moved to another customer or another field (associated data)', () => {
    const encrypted = encryptValue(k, A, 'firstName', 'Anna');
    expect(decryptValue(k, B, 'firstName', encrypted)).toMatchObject({ status: 'invalid' });
    expect(decryptValue(k, A, 'lastName', encrypted)).toMatchObject({ status: 'invalid' });
    expect(decryptValue(k, A, 'listRelatedEntity[].firstName', encrypted)).toMatchObject({
      status: 'invalid',
    });
  });

  it('says erased, never garbage and never an exception, once the key is gone or replaced', () => {
    const encrypted = encryptValue(k, A, 'birthDate', '1980-01-01');
    expect(decryptValue(undefined, A, 'birthDate', encrypted)).toEqual({ status: 'erased' });
    expect(decryptValue(key(), A, 'birthDate', encrypted)).toEqual({ status: 'erased' });
  });

  it('says invalid for malformed values', () => {
    for (const bad of [
      `${ENCRYPTED_VALUE_PREFIX}`,
      `${ENCRYPTED_VALUE_PREFIX}k:short:tag:ct`,
      encryptValue(k, A, 'f', 'x').slice(0, -3) + '!!!',
    ]) {
      expect(decryptValue(k, A, 'f', bad)).toEqual({ status: 'invalid', reason: 'malformed' });
    }
  });

  it('refuses what is not JSON', () => {
    expect(() => encryptValue(k, A, 'f', undefined)).toThrow(TypeError);
  });
});
