import { GroupFlusher } from './group-flusher';

/** A queue flushed by a GroupFlusher; each run records what it took. */
function queueWith(lingerMs: number, runMs = 0) {
  const queue: number[] = [];
  const runs: number[][] = [];
  let release: (() => void) | undefined;
  const flusher = new GroupFlusher({
    lingerMs,
    pending: () => queue.length > 0,
    run: async () => {
      runs.push(queue.splice(0));
      if (runMs > 0) await new Promise((r) => setTimeout(r, runMs));
      else if (runMs < 0) await new Promise<void>((r) => (release = r));
    },
  });
  const add = (n: number) => {
    queue.push(n);
    flusher.request();
  };
  return { queue, runs, flusher, add, release: () => release?.() };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The next turn of the event loop after the flusher's (lingerMs 0 starts a run with setImmediate, and
 * immediates run in order). Not setTimeout(0): from outside an I/O callback Node does not order a 0 ms
 * timer and an immediate, and a busy machine ran the timer first.
 */
const nextTurn = () => new Promise((r) => setImmediate(r));

describe('GroupFlusher', () => {
  it('runs what one turn of the event loop queued as one group', async () => {
    const q = queueWith(0);
    q.add(1);
    q.add(2);
    q.add(3);
    expect(q.runs).toEqual([]); // not within the same turn
    await nextTurn();
    expect(q.runs).toEqual([[1, 2, 3]]);
  });

  it('holds what arrives during a run for the next run, which starts when it ends', async () => {
    const q = queueWith(0, -1);
    q.add(1);
    await nextTurn();
    expect(q.runs).toEqual([[1]]);
    q.add(2);
    q.add(3);
    await tick(5);
    expect(q.runs).toEqual([[1]]); // one run at a time
    q.release();
    await tick(5);
    expect(q.runs).toEqual([[1], [2, 3]]);
  });

  it('waits lingerMs on an idle queue so that later calls join the group', async () => {
    const q = queueWith(30);
    q.add(1);
    await tick(5);
    q.add(2);
    expect(q.runs).toEqual([]);
    await tick(60);
    expect(q.runs).toEqual([[1, 2]]);
  });

  it('does nothing without work', async () => {
    const q = queueWith(0);
    q.flusher.request();
    await nextTurn();
    expect(q.runs).toEqual([]);
  });

  it('stop: a run not started yet never starts, the run under way is awaited, nothing starts after it', async () => {
    const lingering = queueWith(20);
    lingering.add(1);
    await lingering.flusher.stop();
    await tick(40);
    expect(lingering.runs).toEqual([]);
    expect(lingering.queue).toEqual([1]); // left queued for the caller

    const busy = queueWith(0, 20);
    busy.add(1);
    await nextTurn();
    busy.add(2); // queued during the run
    await busy.flusher.stop();
    await tick(40);
    expect(busy.runs).toEqual([[1]]);
    expect(busy.queue).toEqual([2]);
  });
});
