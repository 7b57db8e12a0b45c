import type { DecodedMessage } from '@crs/messaging';
import { initialState, type CustomerState } from './domain/customer-state';
import { SNAPSHOT_FORMAT, SnapshotSerde, StateSnapshots, type StateSnapshot } from './state-snapshots';

const TOPIC = 'snapshots';
const at = (version: number): CustomerState => ({ ...initialState(), exists: true, version });
const record = (
  partition: number,
  streamId: string,
  version: number,
  foldFrom: string | null,
  format = SNAPSHOT_FORMAT,
): DecodedMessage<unknown> => ({
  topic: TOPIC,
  partition,
  offset: '0',
  key: streamId,
  type: 'CustomerStateSnapshot',
  value: { format, streamId, state: at(version), foldFrom } satisfies StateSnapshot,
});
const serde = new SnapshotSerde({
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
  SCHEMA_REGISTRY_USERNAME: '',
  SCHEMA_REGISTRY_PASSWORD: '',
});
const wire = (json: string) => Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), Buffer.from(json)]);

describe('state snapshots: loading', () => {
  it('takes the states and the newest checkpoint of a partition; other partitions fold in full', async () => {
    const store = new StateSnapshots({ topic: TOPIC, maxPerTransaction: 10, intervalMs: 0 });
    store.load(record(0, 'A', 3, '10'));
    store.load(record(0, 'B', 2, '12'));
    store.load(record(1, 'C', 1, null));
    const states = new Map<string, CustomerState>();
    const { startOffsets, loaded, ignoredPartitions } = store.finishLoad(states);
    expect(startOffsets).toEqual(new Map([[0, 12n]]));
    expect(loaded).toBe(2);
    expect(ignoredPartitions).toEqual([1]);
    expect([...states.keys()].sort()).toEqual(['A', 'B']);
  });

  it('ignores a partition whose newest record has another format, or that holds a corrupt record', async () => {
    const store = new StateSnapshots({ topic: TOPIC, maxPerTransaction: 10, intervalMs: 0 });
    store.load(record(0, 'A', 3, '10'));
    store.load(record(0, 'B', 2, '12', SNAPSHOT_FORMAT + 1));
    store.load(record(1, 'C', 1, '5'));
    store.load({ ...record(1, 'D', 1, '6'), value: await serde.decode(wire('{"format":1,')) });
    store.load(record(1, 'E', 1, '7'));
    const states = new Map<string, CustomerState>();
    const { startOffsets, ignoredPartitions } = store.finishLoad(states);
    expect(startOffsets.size).toBe(0);
    expect(ignoredPartitions.sort()).toEqual([0, 1]);
    expect(states.size).toBe(0);
  });

  it('ignores a partition whose checkpoint lies past the end of its events partition', () => {
    const store = new StateSnapshots({ topic: TOPIC, maxPerTransaction: 10, intervalMs: 0 });
    store.load(record(0, 'A', 3, '10'));
    store.load(record(1, 'B', 3, '10'));
    const states = new Map<string, CustomerState>();
    const { startOffsets, ignoredPartitions } = store.finishLoad(
      states,
      new Map([
        [0, 10n],
        [1, 9n],
      ]),
    );
    expect(startOffsets).toEqual(new Map([[0, 10n]]));
    expect(ignoredPartitions).toEqual([1]);
    expect([...states.keys()]).toEqual(['A']);
  });

  it('decodes the wire format with one JSON parse', async () => {
    expect(await serde.decode(wire('{"a":1}'))).toEqual({ a: 1 });
  });
});

describe('state snapshots: writing', () => {
  it('writes the changed states; the checkpoint moves once nothing changed is left behind', () => {
    const store = new StateSnapshots({ topic: TOPIC, maxPerTransaction: 2, intervalMs: 0 });
    store.finishLoad(new Map());
    const states = new Map([
      ['A', at(1)],
      ['B', at(1)],
      ['C', at(1)],
    ]);
    for (const id of states.keys()) store.changed(id, 0, 1);
    const value = (m: { value: unknown }) => m.value as StateSnapshot;

    // A decision on C plus one of the backlog: A and B wait, no checkpoint yet.
    const first = store.outputs(0, new Map([['C', at(2)]]), states, 40n);
    expect(first.map((m) => m.key)).toEqual(['C', 'A']);
    expect(first.map((m) => value(m).foldFrom)).toEqual([null, null]);
    states.set('C', at(2));
    store.committed(0, states, ['C']);
    expect(store.backlog()).toBe(1);

    // An aborted transaction changes nothing.
    store.outputs(0, new Map(), states, 41n);
    store.aborted(0);
    expect(store.backlog()).toBe(1);

    const second = store.outputs(0, new Map(), states, 42n);
    expect(second.map((m) => [m.key, value(m).foldFrom])).toEqual([['B', '42']]);
    store.committed(0, states, []);
    expect(store.backlog()).toBe(0);

    // Later records carry the last checkpoint until the next one.
    store.changed('A', 0, 2);
    store.changed('B', 0, 2);
    states.set('A', at(2));
    states.set('B', at(2));
    store.changed('C', 0, 3);
    states.set('C', at(3));
    const third = store.outputs(0, new Map(), states, 50n);
    expect(third.map((m) => [m.key, value(m).foldFrom])).toEqual([
      ['A', '42'],
      ['B', '42'],
    ]);
  });

  it('writes once per interval: decisions in between wait, a customer decided twice is written once', () => {
    let now = 0;
    const store = new StateSnapshots({
      topic: TOPIC,
      maxPerTransaction: 10,
      intervalMs: 1000,
      now: () => now,
    });
    store.finishLoad(new Map());
    const states = new Map<string, CustomerState>();
    const decide = (id: string, version: number, position: bigint) => {
      const staged = new Map([[id, at(version)]]);
      const out = store.outputs(0, staged, states, position);
      states.set(id, at(version));
      store.committed(0, states, staged.keys());
      return out.map((m) => [m.key, (m.value as StateSnapshot).state.version]);
    };
    expect(decide('A', 1, 0n)).toEqual([['A', 1]]);
    now = 400;
    expect(decide('A', 2, 1n)).toEqual([]);
    expect(decide('B', 1, 2n)).toEqual([]);
    expect(decide('A', 3, 3n)).toEqual([]);
    expect(store.backlog()).toBe(2);
    now = 1000;
    expect(decide('C', 1, 4n)).toEqual([
      ['C', 1],
      ['A', 3],
      ['B', 1],
    ]);
    expect(store.backlog()).toBe(0);
  });

  it('a change the newest snapshot already holds is not written again', () => {
    const store = new StateSnapshots({ topic: TOPIC, maxPerTransaction: 10, intervalMs: 0 });
    store.load(record(0, 'A', 3, '10'));
    const states = new Map<string, CustomerState>();
    store.finishLoad(states);
    store.changed('A', 0, 3);
    expect(store.backlog()).toBe(0);
    expect(store.outputs(0, new Map(), states, 11n)).toEqual([]);
  });
});
