import { looksEncrypted, parseEncryptedValue } from './encrypted-value';

/** The key generation (keyId) of the first encrypted value found in a record; undefined when none is. */
export function keyIdOf(node: unknown): string | undefined {
  if (looksEncrypted(node)) return parseEncryptedValue(node)?.keyId;
  if (Array.isArray(node)) {
    for (const item of node) {
      const id = keyIdOf(item);
      if (id) return id;
    }
    return undefined;
  }
  if (node !== null && typeof node === 'object') {
    for (const value of Object.values(node)) {
      const id = keyIdOf(value);
      if (id) return id;
    }
  }
  return undefined;
}
