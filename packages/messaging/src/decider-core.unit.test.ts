import type { OutgoingMessage } from './decoded-message';
import { DeciderCore, STREAM_VERSION_HEADER, type StateSnapshotStore } from './decider-core';
import type { Decision } from './decider';

// A counter per stream: Add n adds n (n > 0), Add 0 decides nothing, a negative n is rejected.
interface Counter {
  version: number;
  total: number;
}
type Added = { type: 'Added'; data: { n: number } } | { type: 'Refused'; data: { n: number } };
interface AddedEvent {
  eventId: string;
  type: 'Added' | 'Refused';
  streamId: string;
  streamVersion: number;
  occurredAt: string;
  correlationId: string;
  causationId: string;
  businessUnit: string;
  owner: string;
  data: { n: number };
}
class NegativeError extends Error {}

const counter = {
  initialState: (): Counter => ({ version: 0, total: 0 }),
  evolve: (s: Counter, e: AddedEvent): Counter => ({
    version: Math.max(s.version, e.streamVersion),
    total: s.total + (e.type === 'Added' ? e.data.n : 0),
  }),
  decide: (c: { n: number; twice?: boolean }, _s: Counter, _ctx: { now: string }): Added[] => {
    if (c.n < 0) throw new NegativeError();
    if (c.n === 0) return [];
    const added: Added = { type: 'Added', data: { n: c.n } };
    return c.twice ? [added, added] : [added];
  },
};

const NOW = '2026-01-02T03:04:05.000Z';
const decision = (
  id: string,
  stream: string,
  n: number,
  twice = false,
): Decision<{ n: number; twice?: boolean }> => ({
  commandId: id,
  correlationId: `corr-${id}`,
  streamId: stream,
  businessUnit: 'BU',
  command: { n, twice },
});
const core = (extra: { rejected?: (err: unknown) => Added[] | undefined; nothing?: string[] } = {}) =>
  new DeciderCore({
    decider: counter,
    eventsTopic: 'events',
    now: () => NOW,
    eventFields: (d) => ({ owner: `owner-of-${d.streamId}` }),
    ...(extra.rejected ? { rejected: (err: unknown) => extra.rejected!(err) } : {}),
    decidedNothing: (d) => extra.nothing?.push(d.commandId),
  });
const values = (out: OutgoingMessage[]) => out.map((m) => m.value as AddedEvent);

describe('the decider core', () => {
  it('wraps each decided event in the envelope: derived id, next version, time, correlation, own fields', () => {
    const c = core();
    const out = c.decideBatch([decision('c1', 'S', 2, true)], 0);
    expect(out.map((m) => [m.topic, m.key, m.type])).toEqual([
      ['events', 'S', 'Added'],
      ['events', 'S', 'Added'],
    ]);
    expect(values(out)).toEqual([
      {
        eventId: 'c1.0',
        type: 'Added',
        streamId: 'S',
        streamVersion: 1,
        occurredAt: NOW,
        correlationId: 'corr-c1',
        causationId: 'c1',
        businessUnit: 'BU',
        owner: 'owner-of-S',
        data: { n: 2 },
      },
      expect.objectContaining({ eventId: 'c1.1', streamVersion: 2 }),
    ]);
  });

  it('decides a batch against its own earlier decisions, and keeps them staged until committed', () => {
    const c = core();
    const out = c.decideBatch([decision('a', 'S', 1), decision('b', 'S', 1), decision('c', 'T', 1)], 3);
    expect(values(out).map((e) => [e.streamId, e.streamVersion])).toEqual([
      ['S', 1],
      ['S', 2],
      ['T', 1],
    ]);
    expect(c.states.size).toBe(0);
    c.committed(3);
    expect(c.states.get('S')).toEqual({ version: 2, total: 2 });
    expect(c.states.get('T')).toEqual({ version: 1, total: 1 });
  });

  it('forgets an aborted batch: processed again, it decides the same events', () => {
    const c = core();
    const first = c.decideBatch([decision('a', 'S', 1)], 0);
    c.aborted(0);
    expect(c.states.size).toBe(0);
    expect(c.decideBatch([decision('a', 'S', 1)], 0)).toEqual(first);
  });

  it('stages each lane and partition apart', () => {
    const c = core();
    c.decideBatch([decision('a', 'S', 1)], 0, 0);
    c.decideBatch([decision('b', 'T', 1)], 0, 1);
    c.aborted(0, 0);
    c.committed(0, 1);
    expect([...c.states.keys()]).toEqual(['T']);
  });

  it('folds events of the log once: an event the state already holds is skipped by version', () => {
    const c = core();
    const events = values(c.decideBatch([decision('a', 'S', 5), decision('b', 'S', 7)], 0));
    for (const e of [...events, ...events]) c.fold(e, 0);
    expect(c.states.get('S')).toEqual({ version: 2, total: 12 });
    expect(values(c.decideBatch([decision('c', 'S', 1)], 0))[0]!.streamVersion).toBe(3);
  });

  it("puts each event's stream version in a header, so the log reader can skip what the state holds", () => {
    const c = core();
    const out = c.decideBatch([decision('a', 'S', 1, true), decision('b', 'T', 1)], 0);
    expect(out.map((m) => m.headers?.[STREAM_VERSION_HEADER])).toEqual(['1', '2', '1']);
    expect(out.map((m) => Number(m.headers?.[STREAM_VERSION_HEADER]))).toEqual(
      values(out).map((e) => e.streamVersion),
    );
    // Staged decisions are not held yet: an aborted batch's events are never read back, a committed
    // batch's are, and then the state holds them (and everything before them), not what comes after.
    expect(c.holds('S', 1)).toBe(false);
    c.committed(0);
    expect([c.holds('S', 1), c.holds('S', 2), c.holds('S', 3), c.holds('T', 1), c.holds('U', 1)]).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
  });

  it('says which event types it folds', () => {
    expect(core().folds('Anything')).toBe(true);
    const c = new DeciderCore({
      decider: counter,
      eventsTopic: 'events',
      now: () => NOW,
      eventTypes: ['Added'],
    });
    expect([c.folds('Added'), c.folds('Refused')]).toEqual([true, false]);
  });

  it('folds only the event types it is told to', () => {
    const c = new DeciderCore({
      decider: counter,
      eventsTopic: 'events',
      now: () => NOW,
      eventTypes: ['Added'],
    });
    const [added] = values(core().decideBatch([decision('a', 'S', 5)], 0));
    c.fold({ ...added!, type: 'Refused', streamVersion: 9 }, 0);
    expect(c.states.size).toBe(0);
    c.fold(added!, 0);
    expect(c.states.get('S')).toEqual({ version: 1, total: 5 });
  });

  it('records a rejection as the events the rejected hook gives, or lets the error fail the batch', () => {
    const refuse = (err: unknown): Added[] | undefined =>
      err instanceof NegativeError ? [{ type: 'Refused', data: { n: -1 } }] : undefined;
    const out = values(core({ rejected: refuse }).decideBatch([decision('a', 'S', -1)], 0));
    expect(out.map((e) => [e.type, e.streamVersion])).toEqual([['Refused', 1]]);
    expect(() => core().decideBatch([decision('a', 'S', -1)], 0)).toThrow(NegativeError);
  });

  it('tells of a decision that decided nothing', () => {
    const nothing: string[] = [];
    const c = core({ nothing });
    expect(c.decideBatch([decision('a', 'S', 0), decision('b', 'S', 1)], 0)).toHaveLength(1);
    expect(nothing).toEqual(['a']);
  });

  it('drives the snapshot store: changed states, outputs with the reader position, commit and abort', () => {
    const calls: unknown[][] = [];
    const store: StateSnapshotStore<Counter> = {
      changed: (...args) => void calls.push(['changed', ...args]),
      outputs: (partition, staged, _states, position) => {
        calls.push(['outputs', partition, [...staged.keys()], position]);
        return [{ topic: 'snapshots', key: 'S', type: 'Snapshot', value: {} }];
      },
      committed: (partition, _states, changed) => void calls.push(['committed', partition, [...changed]]),
      aborted: (partition) => void calls.push(['aborted', partition]),
    };
    const c = core();
    const [event] = values(core().decideBatch([decision('a', 'S', 1)], 0));
    c.useSnapshots(store);
    c.fold(event!, 2);
    const out = c.decideBatch([decision('b', 'T', 1)], 2, 0, () => 42n);
    expect(out.map((m) => m.topic)).toEqual(['events', 'snapshots']);
    c.committed(2);
    c.decideBatch([decision('c', 'T', 1)], 2);
    c.aborted(2);
    expect(calls).toEqual([
      ['changed', 'S', 2, 1],
      ['outputs', 2, ['T'], 42n],
      ['committed', 2, ['T']],
      ['outputs', 2, ['T'], undefined],
      ['aborted', 2],
    ]);
  });

  it('hands an idle partition the snapshots left behind: no decision staged, none without a store', () => {
    expect(core().idleOutputs(0, 7n)).toEqual([]);
    const calls: unknown[][] = [];
    let left = 2;
    const store: StateSnapshotStore<Counter> = {
      changed: () => undefined,
      outputs: (partition, staged, _states, position) => {
        calls.push(['outputs', partition, [...staged.keys()], position]);
        return left-- > 0 ? [{ topic: 'snapshots', key: 'S', type: 'Snapshot', value: {} }] : [];
      },
      committed: (partition, _states, changed) => void calls.push(['committed', partition, [...changed]]),
      aborted: (partition) => void calls.push(['aborted', partition]),
    };
    const c = core();
    c.useSnapshots(store);
    c.decideBatch([decision('a', 'S', 1)], 1);
    c.committed(1);
    expect(c.idleOutputs(1, 9n).map((m) => m.topic)).toEqual(['snapshots']);
    c.committed(1);
    expect(c.idleOutputs(1, 9n)).toEqual([]);
    // The idle commit changed no state: the next batch decides against the committed one.
    const [next] = values(c.decideBatch([decision('b', 'S', 2)], 1));
    expect(next).toMatchObject({ streamVersion: 2 });
    expect(calls).toEqual([
      ['outputs', 1, ['S'], undefined],
      ['committed', 1, ['S']],
      ['outputs', 1, [], 9n],
      ['committed', 1, []],
      ['outputs', 1, [], 9n],
      ['outputs', 1, ['S'], undefined],
    ]);
  });
});
