import { randomBytes } from 'node:crypto';
import { DataKeyCache } from './data-key-cache';

const key = (id: string) => ({ keyId: id, key: randomBytes(32) });

describe('DataKeyCache', () => {
  it('forgets a key when its TTL ends (so other processes see an erasure within the TTL)', () => {
    let now = 0;
    const cache = new DataKeyCache({ ttlMs: 1000, now: () => now });
    cache.set('s1', key('k1'));
    now = 999;
    expect(cache.get('s1')?.keyId).toBe('k1');
    now = 1000;
    expect(cache.get('s1')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('holds at most maxEntries keys and evicts the least recently used', () => {
    const cache = new DataKeyCache({ maxEntries: 2 });
    cache.set('s1', key('k1'));
    cache.set('s2', key('k2'));
    cache.get('s1');
    cache.set('s3', key('k3'));
    expect(cache.size).toBe(2);
    expect(cache.get('s2')).toBeUndefined();
    expect(cache.get('s1')?.keyId).toBe('k1');
    expect(cache.get('s3')?.keyId).toBe('k3');
  });

  it('stays bounded when full and every key is new (a batch import of new customers)', () => {
    const cache = new DataKeyCache({ maxEntries: 100 });
    for (let i = 0; i < 10_000; i++) cache.set(`s${i}`, key(`k${i}`));
    expect(cache.size).toBe(100);
    expect(cache.get('s9999')?.keyId).toBe('k9999');
    expect(cache.get('s9899')).toBeUndefined();
  });

  it('holds nothing with maxEntries 0, and drops on demand', () => {
    const off = new DataKeyCache({ maxEntries: 0 });
    off.set('s1', key('k1'));
    expect(off.get('s1')).toBeUndefined();
    const cache = new DataKeyCache();
    cache.set('s1', key('k1'));
    cache.drop('s1');
    expect(cache.get('s1')).toBeUndefined();
  });
});
