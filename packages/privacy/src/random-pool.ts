import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 64 * 1024;
let pool = Buffer.allocUnsafeSlow(0);
let offset = 0;

/**
 * `size` bytes from the operating system's CSPRNG, drawn from a pool that one `randomFillSync` fills
 * 64 KiB at a time. The same randomness as `randomBytes(size)`, without its per-call cost: the accept
 * path's profile showed `randomBytes(12)` (one GCM nonce per personal value) at 12 % of the ingress's
 * CPU during batch imports (docs/performance.md). Each byte is handed out once: a refill allocates a new
 * pool and never rewrites one whose slices are still held. The result is a view of the pool; callers that
 * keep the bytes for long (data keys) copy them (`randomBytesCopy`) so a 64 KiB pool is not retained.
 */
export function randomSlice(size: number): Buffer {
  if (size > POOL_BYTES) return randomFillSync(Buffer.allocUnsafeSlow(size));
  if (offset + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_BYTES));
    offset = 0;
  }
  const out = pool.subarray(offset, offset + size);
  offset += size;
  return out;
}

/** `size` random bytes in a buffer of their own (for bytes kept for long: data keys). */
export function randomBytesCopy(size: number): Buffer {
  return Buffer.from(randomSlice(size));
}
