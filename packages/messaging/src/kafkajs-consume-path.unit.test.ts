import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { kafkajsInternal, referenceVarint as varint } from './kafka-wire.fixtures';

/**
 * Our patch of kafkajs's consume path (patches/kafkajs@2.2.4.patch, decision 0084): records read in place,
 * offsets and timestamps added as Numbers where that is exact, headers into one object, the fetched-offset
 * filter without a `Long` per message. Every service reads its input through this decoder, so what it
 * returns must be what Kafka's record format says, to the digit: the batches here are written by hand from
 * that definition (https://kafka.apache.org/documentation/#recordbatch), not with kafkajs's encoder.
 */

interface DecodedRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[]>;
  offset: string;
  timestamp: string;
  isControlRecord: boolean;
}
const Decoder = kafkajsInternal('protocol/decoder') as new (b: Buffer) => unknown;
const decodeBatch = kafkajsInternal('protocol/recordBatch/v0/decoder') as (
  d: unknown,
) => Promise<{ records: DecodedRecord[] }>;
const Batch = kafkajsInternal('consumer/batch') as new (
  topic: string,
  fetchedOffset: string,
  partitionData: Record<string, unknown>,
) => { messages: DecodedRecord[] };

const bytesField = (b: Buffer | null) =>
  b === null ? varint(-1n) : Buffer.concat([varint(BigInt(b.length)), b]);

interface GivenRecord {
  timestampDelta: bigint;
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: [string, Buffer][];
  /** Bytes a later version of the format might add at the record's end (inside its length). */
  trailing?: Buffer;
}

function recordBytes(r: GivenRecord): Buffer {
  const body = Buffer.concat([
    Buffer.from([0]), // attributes
    varint(r.timestampDelta),
    varint(BigInt(r.offsetDelta)),
    bytesField(r.key),
    bytesField(r.value),
    varint(BigInt(r.headers.length)),
    ...r.headers.map(([k, v]) => Buffer.concat([bytesField(Buffer.from(k, 'utf8')), bytesField(v)])),
    r.trailing ?? Buffer.alloc(0),
  ]);
  return Buffer.concat([varint(BigInt(body.length)), body]);
}

/** A record batch (magic 2) as a broker returns it; the CRC is left 0 (kafkajs does not check it). */
function batchBytes(opts: {
  firstOffset: bigint;
  firstTimestamp: bigint;
  maxTimestamp?: bigint;
  records: GivenRecord[];
  logAppendTime?: boolean;
  control?: boolean;
  gzip?: boolean;
}): Buffer {
  const records = Buffer.concat(opts.records.map(recordBytes));
  const attributes = (opts.gzip ? 1 : 0) | (opts.logAppendTime ? 0x08 : 0) | (opts.control ? 0x20 : 0);
  const head = Buffer.alloc(4 + 1 + 4 + 2 + 4 + 8 + 8 + 8 + 2 + 4 + 4);
  let o = head.writeInt32BE(0, 0); // partition leader epoch
  o = head.writeInt8(2, o); // magic
  o = head.writeUInt32BE(0, o); // crc
  o = head.writeInt16BE(attributes, o);
  o = head.writeInt32BE(opts.records.length - 1, o); // last offset delta
  o = head.writeBigInt64BE(opts.firstTimestamp, o);
  o = head.writeBigInt64BE(opts.maxTimestamp ?? opts.firstTimestamp, o);
  o = head.writeBigInt64BE(-1n, o); // producer id
  o = head.writeInt16BE(-1, o); // producer epoch
  o = head.writeInt32BE(-1, o); // first sequence
  head.writeInt32BE(opts.records.length, o);
  const body = Buffer.concat([head, opts.gzip ? gzipSync(records) : records]);
  const prefix = Buffer.alloc(12);
  prefix.writeBigInt64BE(opts.firstOffset, 0);
  prefix.writeInt32BE(body.length, 8);
  return Buffer.concat([prefix, body]);
}

const decode = async (buffer: Buffer) => (await decodeBatch(new Decoder(buffer))).records;
const given = (r: Partial<GivenRecord> & { offsetDelta: number }): GivenRecord => ({
  timestampDelta: 0n,
  key: Buffer.from(`key-${r.offsetDelta}`),
  value: randomBytes(20),
  headers: [],
  ...r,
});

describe('kafkajs patch: record batches decoded in place (decision 0084)', () => {
  it('gives every offset and timestamp as the exact decimal of first + delta, within and beyond 2^53', async () => {
    const firstOffsets = [0n, 41n, 2n ** 53n - 3n, 2n ** 53n, 2n ** 63n - 100n];
    const firstTimestamps = [1_795_982_396_672n, -1n, 0n, 2n ** 53n - 2n, -(2n ** 62n)];
    const deltas = [
      0n,
      1n,
      -1n,
      63n,
      -65n,
      2n ** 31n,
      -(2n ** 31n) - 1n,
      2n ** 48n - 1n,
      2n ** 48n,
      -(2n ** 48n) - 1n,
    ];
    deltas.push(2n ** 55n, -(2n ** 60n), 2n ** 62n);
    for (const firstOffset of firstOffsets)
      for (const firstTimestamp of firstTimestamps) {
        const records = deltas.map((timestampDelta, i) =>
          given({ timestampDelta, offsetDelta: i === deltas.length - 1 ? 2 ** 31 - 1 : i }),
        );
        const decoded = await decode(batchBytes({ firstOffset, firstTimestamp, records }));
        expect(decoded.map((d) => [d.offset, d.timestamp])).toEqual(
          records.map((r) => [
            String(firstOffset + BigInt(r.offsetDelta)),
            String(BigInt.asIntN(64, firstTimestamp + r.timestampDelta)),
          ]),
        );
      }
  });

  it('returns keys, values and headers as written: nulls, repeated keys in order, any key name', async () => {
    const h = (s: string) => Buffer.from(s);
    const records: GivenRecord[] = [
      given({ offsetDelta: 0, key: null, value: null }),
      given({
        offsetDelta: 1,
        headers: [
          ['type', h('CustomerCreated')],
          ['streamVersion', h('7')],
          ['type', h('second')],
          ['type', h('third')],
          ['Grüße', h('é')],
          ['', h('')],
        ],
      }),
      given({
        offsetDelta: 2,
        headers: [
          ['__proto__', h('p')],
          ['toString', h('t')],
          ['constructor', h('c')],
        ],
      }),
    ];
    const [first, second, third] = (await decode(
      batchBytes({ firstOffset: 5n, firstTimestamp: 1n, records }),
    )) as [DecodedRecord, DecodedRecord, DecodedRecord];
    expect([first.key, first.value, first.headers]).toEqual([null, null, {}]);
    expect(second.key).toEqual(h('key-1'));
    expect(second.value).toEqual(records[1]?.value);
    expect(second.headers).toEqual({
      type: [h('CustomerCreated'), h('second'), h('third')],
      streamVersion: h('7'),
      Grüße: h('é'),
      '': h(''),
    });
    // A header named __proto__ is a header, not the object's prototype.
    expect(Object.getPrototypeOf(third.headers)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(third.headers, '__proto__')?.value).toEqual(h('p'));
    expect(Object.keys(third.headers)).toEqual(['__proto__', 'toString', 'constructor']);
  });

  it("stands at each record's end by its length, whatever the record holds after its headers", async () => {
    const records = [0, 1, 2].map((i) =>
      given({ offsetDelta: i, trailing: i === 1 ? randomBytes(9) : undefined }),
    );
    const decoded = await decode(batchBytes({ firstOffset: 100n, firstTimestamp: 10n, records }));
    expect(decoded.map((d) => [d.offset, d.key?.toString(), d.value])).toEqual(
      records.map((r, i) => [String(100 + i), `key-${i}`, r.value]),
    );
  });

  it('decodes a gzip batch to the same records, and takes the log-append time and control flag of the batch', async () => {
    const records = [0, 1, 2].map((i) => given({ offsetDelta: i, timestampDelta: BigInt(i * 1000) }));
    const plain = await decode(batchBytes({ firstOffset: 9n, firstTimestamp: 50n, records }));
    const zipped = await decode(batchBytes({ firstOffset: 9n, firstTimestamp: 50n, records, gzip: true }));
    expect(zipped.map((d) => [d.offset, d.timestamp, d.key, d.value])).toEqual(
      plain.map((d) => [d.offset, d.timestamp, d.key, d.value]),
    );
    const appended = await decode(
      batchBytes({
        firstOffset: 9n,
        firstTimestamp: 50n,
        maxTimestamp: 777n,
        records,
        logAppendTime: true,
        control: true,
      }),
    );
    expect(appended.map((d) => [d.offset, d.timestamp, d.isControlRecord])).toEqual([
      ['9', '777', true],
      ['10', '777', true],
      ['11', '777', true],
    ]);
  });
});

describe('kafkajs patch: a fetch keeps the messages at or after the fetched offset (decision 0084)', () => {
  it('compares offsets exactly, below and beyond 2^53', async () => {
    for (const first of [0n, 2n ** 53n - 2n, 2n ** 63n - 10n]) {
      const records = [0, 1, 2, 3].map((i) => given({ offsetDelta: i }));
      const messages = await decode(batchBytes({ firstOffset: first, firstTimestamp: 1n, records }));
      for (const skip of [0n, 1n, 3n, 4n]) {
        const batch = new Batch('t', String(first + skip), {
          partition: 0,
          highWatermark: String(first + 4n),
          abortedTransactions: [],
          messages,
        });
        expect(batch.messages.map((m) => m.offset)).toEqual(
          messages.filter((m) => BigInt(m.offset) >= first + skip).map((m) => m.offset),
        );
        expect(batch.messages).toHaveLength(Number(4n - skip));
      }
    }
  });
});
