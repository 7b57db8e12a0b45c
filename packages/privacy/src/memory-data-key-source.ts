import { randomBytes } from 'node:crypto';
import { b64u } from './encrypted-value';
import type { DataKeySource } from './data-key-store';
import type { DataKey } from './field-cipher';

/** Data keys in a Map: for unit tests of code that encrypts, and for tools that need no store. */
export class MemoryDataKeySource implements DataKeySource {
  private readonly keys = new Map<string, DataKey>();

  async keyFor(streamId: string): Promise<DataKey> {
    let key = this.keys.get(streamId);
    if (!key) {
      key = { keyId: b64u(randomBytes(9)), key: randomBytes(32) };
      this.keys.set(streamId, key);
    }
    return key;
  }

  async currentKey(streamId: string): Promise<DataKey | undefined> {
    return this.keys.get(streamId);
  }

  async erase(streamId: string): Promise<{ erased: boolean }> {
    return { erased: this.keys.delete(streamId) };
  }
}
