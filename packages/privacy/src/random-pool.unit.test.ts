import { randomBytesCopy, randomSlice } from './random-pool';

describe('randomSlice (GCM nonces and key ids from one CSPRNG pool)', () => {
  it('never hands out the same bytes twice, across many pool refills', () => {
    // 12-byte nonces: 20,000 of them span several 64 KiB pools; a repeat would be a reused GCM nonce.
    const seen = new Set<string>();
    for (let i = 0; i < 20000; i += 1) seen.add(randomSlice(12).toString('hex'));
    expect(seen.size).toBe(20000);
  });

  it('keeps earlier slices intact when the pool is refilled', () => {
    const first = randomSlice(12);
    const copy = Buffer.from(first);
    for (let i = 0; i < 10000; i += 1) randomSlice(12);
    expect(first.equals(copy)).toBe(true);
  });

  it('serves sizes larger than the pool', () => {
    expect(randomSlice(100 * 1024)).toHaveLength(100 * 1024);
  });

  it('gives data keys bytes of their own, not a view that keeps a whole pool alive', () => {
    const key = randomBytesCopy(32);
    expect(key).toHaveLength(32);
    expect(key.buffer.byteLength).toBeLessThan(64 * 1024);
  });
});
