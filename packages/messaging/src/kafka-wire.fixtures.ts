import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Kafka's varint, written from the protocol's definition for the kafkajs patch's tests
 * (https://kafka.apache.org/protocol#protocol_types): zigzag when signed, then base-128 groups, low first,
 * each but the last with its top bit set. `BigInt` throughout, so it stands apart from the code it checks.
 */
export function referenceVarint(value: bigint, signed = true): Buffer {
  let n = signed ? BigInt.asUintN(64, (value << 1n) ^ (value >> 63n)) : value;
  const bytes: number[] = [];
  while (n >= 0x80n) {
    bytes.push(Number(n & 0x7fn) | 0x80);
    n >>= 7n;
  }
  bytes.push(Number(n));
  return Buffer.from(bytes);
}

const load = createRequire(__filename);
const kafkajsSrc = path.join(path.dirname(load.resolve('kafkajs')), 'src');

/** One of kafkajs's internal modules (which its package does not export), by its path under `src/`. */
export function kafkajsInternal(modulePath: string): unknown {
  return load(path.join(kafkajsSrc, modulePath));
}
