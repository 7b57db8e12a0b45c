import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataKeyUnwrapError, KekSetInvalidError } from './errors';
import { KeyEncryptionKeys } from './key-encryption-keys';

const STREAM = 'BU1:C-1';

describe('key-encryption keys (PRIVACY_KEK_FILE)', () => {
  it('wraps with the active KEK and unwraps with the KEK a stored key names, across a rotation', () => {
    const first = KeyEncryptionKeys.generateDocument('kek-1');
    const before = KeyEncryptionKeys.fromDocument(first);
    const dataKey = randomBytes(32);
    const wrappedOld = before.wrap(STREAM, 'k1', dataKey);
    expect(wrappedOld.kek).toBe('kek-1');
    expect(wrappedOld.wrapped).not.toContain(dataKey.toString('base64url'));

    // Rotation: a new active KEK; the old one stays until every data key is rewrapped.
    const second = KeyEncryptionKeys.generateDocument('kek-2', first);
    const during = KeyEncryptionKeys.fromDocument(second);
    expect(during.activeId).toBe('kek-2');
    expect(during.unwrap(STREAM, 'k1', wrappedOld)).toEqual(dataKey);
    const rewrapped = during.wrap(STREAM, 'k1', during.unwrap(STREAM, 'k1', wrappedOld));
    expect(rewrapped.kek).toBe('kek-2');

    // After the rotation the old KEK leaves the set: rewrapped keys still open, old wrappings do not.
    const after = KeyEncryptionKeys.fromDocument({
      active: 'kek-2',
      keys: second.keys.filter((k) => k.id === 'kek-2'),
    });
    expect(after.unwrap(STREAM, 'k1', rewrapped)).toEqual(dataKey);
    expect(() => after.unwrap(STREAM, 'k1', wrappedOld)).toThrow(DataKeyUnwrapError);
  });

  it('binds a wrapped key to its customer and key id', () => {
    const keks = KeyEncryptionKeys.fromDocument(KeyEncryptionKeys.generateDocument('kek-1'));
    const wrapped = keks.wrap(STREAM, 'k1', randomBytes(32));
    expect(() => keks.unwrap('BU1:C-2', 'k1', wrapped)).toThrow(DataKeyUnwrapError);
    expect(() => keks.unwrap(STREAM, 'k2', wrapped)).toThrow(DataKeyUnwrapError);
  });

  it('refuses inconsistent key sets with messages that hold no key material', () => {
    const key = randomBytes(32).toString('base64');
    const cases: unknown[] = [
      null,
      { keys: [] },
      { active: 'a', keys: [] },
      { active: 'a', keys: [{ id: 'a', key: randomBytes(16).toString('base64') }] },
      {
        active: 'a',
        keys: [
          { id: 'a', key },
          { id: 'a', key },
        ],
      },
      { active: 'a', keys: [{ id: 'bad id', key }] },
    ];
    for (const doc of cases) {
      let error: unknown;
      try {
        KeyEncryptionKeys.fromDocument(doc);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(KekSetInvalidError);
      expect((error as Error).message).not.toContain(key);
    }
  });

  it('reads the key set from a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'crs-kek-'));
    try {
      const file = join(dir, 'keks.json');
      writeFileSync(file, JSON.stringify(KeyEncryptionKeys.generateDocument('kek-1')));
      expect(KeyEncryptionKeys.fromFile(file).activeId).toBe('kek-1');
      expect(() => KeyEncryptionKeys.fromFile(join(dir, 'missing.json'))).toThrow(KekSetInvalidError);
      writeFileSync(file, 'not json');
      expect(() => KeyEncryptionKeys.fromFile(file)).toThrow(KekSetInvalidError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
