import { randomBytes, randomUUID } from 'node:crypto';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { kafkajsInternal } from './kafka-wire.fixtures';

const murmur2 = kafkajsInternal('producer/partitioners/default/murmur2') as (key: Buffer | string) => number;

/**
 * Our patch of kafkajs's default partitioner (patches/kafkajs@2.2.4.patch): murmur2 in 32-bit integer
 * arithmetic instead of a `Long` per operation, and the available partitions listed only for a message
 * without a key. Every producer of a customer's commands and events must pick the partition the Java client
 * picks (co-partitioned topics; other clients of our topics), so the hash must not change by one bit.
 */

/** The Java client's `Utils.murmur2`, transcribed with Java's `int` semantics (BigInt.asIntN(32)). */
function javaMurmur2(data: Buffer): number {
  const int = (x: bigint) => BigInt.asIntN(32, x);
  const ushr = (x: bigint, n: bigint) => BigInt.asUintN(32, x) >> n;
  const m = 0x5bd1e995n;
  const length = data.length;
  let h = int(0x9747b28cn ^ BigInt(length));
  const length4 = Math.floor(length / 4);
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = int(
      BigInt(data[i4]!) +
        (BigInt(data[i4 + 1]!) << 8n) +
        (BigInt(data[i4 + 2]!) << 16n) +
        (BigInt(data[i4 + 3]!) << 24n),
    );
    k = int(k * m);
    k = int(k ^ ushr(k, 24n));
    k = int(k * m);
    h = int(h * m);
    h = int(h ^ k);
  }
  const tail = length & ~3;
  // Java's switch falls through from 3 to 2 to 1.
  const rest = length % 4;
  if (rest >= 3) h = int(h ^ (BigInt(data[tail + 2]!) << 16n));
  if (rest >= 2) h = int(h ^ (BigInt(data[tail + 1]!) << 8n));
  if (rest >= 1) h = int(int(h ^ BigInt(data[tail]!)) * m);
  h = int(h ^ ushr(h, 13n));
  h = int(h * m);
  h = int(h ^ ushr(h, 15n));
  return Number(h);
}

describe('kafkajs patch: murmur2 in 32-bit arithmetic', () => {
  it("gives the Java client's hash for the key of kafkajs#357 and the unpatched kafkajs's for these keys", () => {
    // 1009543857: the Java producer's murmur2 of "100:48069" (tulios/kafkajs#357). The others were computed
    // with kafkajs 2.2.4's own Long-based murmur2 before the patch.
    const known: Array<[string, number]> = [
      ['100:48069', 1009543857],
      ['', 275646681],
      ['a', -1563381124],
      ['ab', 316155434],
      ['abc', 479470107],
      ['abcd', -1323649548],
      ['abcde', 461995741],
      ['21', -973932308],
      ['foobar', -790332482],
      ['thingäöüÄÖÜ', 215785582],
      ['3f1c7a52-9b0e-4d3a-8c1e-2f6b5a7d9e01', 1438209303],
    ];
    expect(known.map(([key]) => [key, murmur2(key)])).toEqual(known);
  });

  it('agrees with the Java transcription on keys of every length up to 70 bytes, bytes and strings alike', () => {
    for (let round = 0; round < 20; round++) {
      for (let length = 0; length <= 70; length++) {
        const bytes = randomBytes(length);
        expect([length, murmur2(bytes)]).toEqual([length, javaMurmur2(bytes)]);
      }
      const uuid = randomUUID();
      expect([uuid, murmur2(uuid)]).toEqual([uuid, javaMurmur2(Buffer.from(uuid))]);
    }
  });
});

describe('kafkajs patch: the default partitioner', () => {
  const partitions = (leaders: number[]): PartitionMetadata[] =>
    leaders.map((leader, partitionId) => ({
      partitionId,
      leader,
      partitionErrorCode: 0,
      replicas: [leader],
      isr: [leader],
    }));
  const message = (m: { key?: string | null; partition?: number }) => ({ value: 'v', ...m });

  it('takes a given partition, else the positive murmur2 of the key modulo all partitions (a leaderless one too)', () => {
    const partitioner = Partitioners.DefaultPartitioner();
    const metadata = partitions([1, -1, 1, 1, 1, 1]);
    expect(partitioner({ topic: 't', partitionMetadata: metadata, message: message({ partition: 4 }) })).toBe(
      4,
    );
    for (let i = 0; i < 200; i++) {
      const key = randomUUID();
      const expected = (javaMurmur2(Buffer.from(key)) & 0x7fffffff) % 6;
      expect(partitioner({ topic: 't', partitionMetadata: metadata, message: message({ key }) })).toBe(
        expected,
      );
    }
  });

  it('spreads messages without a key over the partitions that have a leader, in turn', () => {
    const partitioner = Partitioners.DefaultPartitioner();
    const metadata = partitions([1, -1, 1, -1]);
    const picked = Array.from({ length: 8 }, () =>
      partitioner({ topic: 'keyless', partitionMetadata: metadata, message: message({ key: null }) }),
    );
    expect(new Set(picked)).toEqual(new Set([0, 2]));
    for (let i = 1; i < picked.length; i++) expect(picked[i]).not.toBe(picked[i - 1]);
  });
});
