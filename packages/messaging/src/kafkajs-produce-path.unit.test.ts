import { randomBytes } from 'node:crypto';
import { kafkajsInternal, referenceVarint } from './kafka-wire.fixtures';

/**
 * Our patches of kafkajs's produce path (patches/kafkajs@2.2.4.patch, decision 0048).
 * - The record-batch checksum: every batch a producer writes carries a CRC-32C that the broker checks (a
 *   wrong one is refused as CORRUPT_MESSAGE). The patch computes it with @node-rs/crc32's native code
 *   where its binary loads and keeps kafkajs's table as the fallback; both must give the same checksum.
 * - Records and headers encoded into buffers of their own size, not zero-filled: what is encoded must
 *   decode to exactly what was given (kafkajs's own decoder), with nothing of the spare bytes in it.
 */
type Crc = ((buffer: Buffer) => number) & {
  implementation: 'native' | 'javascript';
  javascript: (buffer: Buffer) => number;
};

const crc32C = kafkajsInternal('protocol/recordBatch/crc32C') as Crc;

describe('kafkajs patch: native CRC-32C of record batches', () => {
  it('uses the native implementation on this platform (linux x64 glibc, as in our image)', () => {
    expect(crc32C.implementation).toBe('native');
  });

  it('gives the standard check value of CRC-32C (Castagnoli) for "123456789"', () => {
    expect(crc32C(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32C.javascript(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('agrees with kafkajs own table on empty, small, odd-sized and batch-sized buffers', () => {
    for (const size of [0, 1, 7, 61, 1000, 4093, 65_536, 1_048_583]) {
      const buffer = randomBytes(size);
      expect([size, crc32C(buffer)]).toEqual([size, crc32C.javascript(buffer)]);
    }
  });

  it('returns an unsigned 32-bit value, as kafkajs writes it with writeUInt32', () => {
    for (let i = 0; i < 200; i++) {
      const c = crc32C(randomBytes(64));
      expect(Number.isInteger(c) && c >= 0 && c <= 0xffffffff).toBe(true);
    }
  });

  it('checks a slice of a larger buffer by its own bytes (kafkajs passes encoder slices)', () => {
    const whole = randomBytes(10_000);
    const slice = whole.subarray(123, 9_000);
    expect(crc32C(slice)).toBe(crc32C.javascript(Buffer.from(slice)));
  });
});

interface DecodedRecord {
  key: Buffer;
  value: Buffer;
  headers: Record<string, Buffer>;
  offset: string;
}
const { RecordBatch } = kafkajsInternal('protocol/recordBatch/v0') as {
  RecordBatch: (batch: Record<string, unknown>) => Promise<{ buffer: Buffer }>;
};
const Record = kafkajsInternal('protocol/recordBatch/record/v0') as (
  record: Record<string, unknown>,
) => unknown;
const Decoder = kafkajsInternal('protocol/decoder') as new (b: Buffer) => unknown;
const decodeBatch = kafkajsInternal('protocol/recordBatch/v0/decoder') as (
  d: unknown,
) => Promise<{ records: DecodedRecord[] }>;

describe('kafkajs patch: records encoded into buffers of their size', () => {
  it('round-trips keys, values of every size and headers through kafkajs own record-batch decoder', async () => {
    const given = [0, 1, 300, 511, 512, 4_000, 70_000].map((size, i) => ({
      key: Buffer.from(`DEMO:customer-${i}`),
      value: randomBytes(size),
      headers: { type: 'CustomerCreated', streamVersion: String(i + 1), empty: '' },
    }));
    const batch = await RecordBatch({
      compression: 0,
      firstOffset: '0',
      firstTimestamp: 1_700_000_000_000,
      maxTimestamp: 1_700_000_000_000,
      partitionLeaderEpoch: 0,
      lastOffsetDelta: given.length - 1,
      producerId: '-1',
      producerEpoch: 0,
      firstSequence: 0,
      records: given.map((r, i) => Record({ offsetDelta: i, timestampDelta: 0, ...r })),
    });
    // firstOffset (8), length (4), leader epoch (4), magic (1), then the CRC-32C of everything after it:
    // the checksum the broker verifies, computed natively, equals kafkajs's table over the same bytes.
    expect(batch.buffer.readUInt32BE(17)).toBe(crc32C.javascript(batch.buffer.subarray(21)));
    const { records } = await decodeBatch(new Decoder(batch.buffer));
    expect(
      records.map((r) => ({
        key: r.key,
        value: r.value ?? Buffer.alloc(0),
        headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v.toString('utf8')])),
      })),
    ).toEqual(given);
  });
});

type VarEncoder = {
  writeVarInt(v: number): VarEncoder;
  writeVarLong(v: number): VarEncoder;
  writeUVarInt(v: number): VarEncoder;
  buffer: Buffer;
};
const Encoder = kafkajsInternal('protocol/encoder') as (new (size?: number) => VarEncoder) & {
  sizeOfVarLong(v: number): number;
};

describe('kafkajs patch: varints written into the encoder, varlongs of int32 values as varints (decision 0083)', () => {
  const edges = [0, 1, -1, 63, 64, -64, -65, 127, 128, 8191, 8192, 2 ** 31 - 1, -(2 ** 31)];
  const samples = [...edges, ...Array.from({ length: 2000 }, () => randomBytes(4).readInt32LE(0))];

  it("writes Kafka's encoding of int32 varints and varlongs, and of varlongs beyond 32 bits", () => {
    for (const v of samples) {
      const expected = referenceVarint(BigInt(v), true).toString('hex');
      expect([v, new Encoder(1).writeVarInt(v).buffer.toString('hex')]).toEqual([v, expected]);
      expect([v, new Encoder(1).writeVarLong(v).buffer.toString('hex')]).toEqual([v, expected]);
      expect([v, Encoder.sizeOfVarLong(v)]).toEqual([v, expected.length / 2]);
    }
    for (const v of [2 ** 31, -(2 ** 31) - 1, 2 ** 40, -(2 ** 40), Number.MAX_SAFE_INTEGER]) {
      const expected = referenceVarint(BigInt(v), true).toString('hex');
      expect([v, new Encoder(1).writeVarLong(v).buffer.toString('hex')]).toEqual([v, expected]);
      expect([v, Encoder.sizeOfVarLong(v)]).toEqual([v, expected.length / 2]);
    }
    for (const v of [0, 1, 127, 128, 300, 2 ** 28, 2 ** 32 - 1]) {
      const expected = referenceVarint(BigInt(v), false).toString('hex');
      expect([v, new Encoder(1).writeUVarInt(v).buffer.toString('hex')]).toEqual([v, expected]);
    }
  });

  it('keeps what was written before and after a varint, across buffer growth', () => {
    const e = new Encoder(2) as VarEncoder & { writeInt8(v: number): VarEncoder };
    e.writeInt8(7);
    for (const v of samples.slice(0, 200)) e.writeVarInt(v).writeVarLong(v);
    e.writeInt8(9);
    const expected = Buffer.concat([
      Buffer.from([7]),
      ...samples
        .slice(0, 200)
        .flatMap((v) => [referenceVarint(BigInt(v), true), referenceVarint(BigInt(v), true)]),
      Buffer.from([9]),
    ]);
    expect(e.buffer.equals(expected)).toBe(true);
  });
});
