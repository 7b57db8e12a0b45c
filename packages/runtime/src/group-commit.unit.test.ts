import { GroupCommit, type QueuedSubmit } from './group-commit';

/** A GroupCommit whose stages record the groups they saw; `reserve` waits until released when `hold` is set. */
function commitWith(maxItems: number, opts: { failReserve?: boolean; failComplete?: boolean } = {}) {
  const reserved: number[][][] = [];
  let hold: Promise<void> | undefined;
  let release: (() => void) | undefined;
  const commit = new GroupCommit<number, string, number>(0, maxItems, {
    reserve: async (group: QueuedSubmit<number, string>[]) => {
      reserved.push(group.map((r) => r.items));
      if (hold) await hold;
      if (opts.failReserve) throw new Error('reserve failed');
      return reserved.length;
    },
    complete: async (group, groupNo) => {
      if (opts.failComplete) throw new Error('complete failed');
      for (const r of group) r.resolve(r.items.map((i) => `${groupNo}:${i}`));
    },
  });
  return {
    commit,
    reserved,
    holdNext: () => {
      hold = new Promise<void>((r) => (release = r));
    },
    release: () => {
      hold = undefined;
      release?.();
    },
  };
}

describe('GroupCommit', () => {
  it('puts the calls of one turn in one group and answers each call with its own outcomes', async () => {
    const { commit, reserved } = commitWith(100);
    const answers = await Promise.all([commit.submit([1, 2]), commit.submit([3])]);
    expect(reserved).toEqual([[[1, 2], [3]]]);
    expect(answers).toEqual([['1:1', '1:2'], ['1:3']]);
  });

  it('answers an empty call at once without a group', async () => {
    const { commit, reserved } = commitWith(100);
    await expect(commit.submit([])).resolves.toEqual([]);
    expect(reserved).toEqual([]);
  });

  it('keeps requests whole: a group takes requests up to maxItems items, a larger one goes alone', async () => {
    const { commit, reserved } = commitWith(3);
    await Promise.all([commit.submit([1]), commit.submit([2, 3]), commit.submit([4])]);
    // 1 + 2 items fill a group of 3 exactly; the next request waits for the next group.
    expect(reserved).toEqual([[[1], [2, 3]], [[4]]]);
    reserved.length = 0;
    await Promise.all([commit.submit([1, 2]), commit.submit([3, 4, 5, 6]), commit.submit([7])]);
    expect(reserved).toEqual([[[1, 2]], [[3, 4, 5, 6]], [[7]]]);
  });

  it('gathers the calls made while a group reserves into the next group', async () => {
    const c = commitWith(100);
    c.holdNext();
    const first = c.commit.submit([1]);
    await new Promise((r) => setImmediate(r));
    expect(c.reserved).toEqual([[[1]]]);
    const later = [c.commit.submit([2]), c.commit.submit([3])];
    await new Promise((r) => setImmediate(r));
    expect(c.reserved).toHaveLength(1);
    c.release();
    await expect(first).resolves.toEqual(['1:1']);
    await expect(Promise.all(later)).resolves.toEqual([['2:2'], ['2:3']]);
    expect(c.reserved).toEqual([[[1]], [[2], [3]]]);
  });

  it('rejects every call of a group whose reservation fails, and the next group still runs', async () => {
    const failing = commitWith(100, { failReserve: true });
    const calls = [failing.commit.submit([1]), failing.commit.submit([2])];
    for (const call of calls) await expect(call).rejects.toThrow('reserve failed');
    await expect(failing.commit.submit([3])).rejects.toThrow('reserve failed');
    expect(failing.reserved).toEqual([[[1], [2]], [[3]]]);
  });

  it('rejects the calls of a group whose completion fails instead of leaving them waiting', async () => {
    const { commit, reserved } = commitWith(100, { failComplete: true });
    const calls = [commit.submit([1]), commit.submit([2])];
    for (const call of calls) await expect(call).rejects.toThrow('complete failed');
    expect(reserved).toEqual([[[1], [2]]]);
  });
});
