import { StopStack } from './stop-stack';

describe('StopStack', () => {
  it('runs its steps in reverse order of registration, once', async () => {
    const ran: string[] = [];
    const stack = new StopStack();
    for (const name of ['server', 'store', 'consumer']) stack.push(() => void ran.push(name));
    await stack.unwind();
    await stack.unwind();
    expect(ran).toEqual(['consumer', 'store', 'server']);
    expect(stack.size).toBe(0);
  });

  it('waits for each step before the next', async () => {
    const ran: string[] = [];
    const stack = new StopStack();
    stack.push(() => void ran.push('store closed'));
    stack.push(async () => {
      await new Promise((r) => setTimeout(r, 20));
      ran.push('consumer stopped');
    });
    await stack.unwind();
    expect(ran).toEqual(['consumer stopped', 'store closed']);
  });

  it('runs every step when some fail, throws the first failure and reports the later ones', async () => {
    const ran: string[] = [];
    const reported: unknown[] = [];
    const stack = new StopStack((err) => reported.push(err));
    const first = new Error('consumer would not stop');
    const second = new Error('store would not close');
    stack.push(() => void ran.push('server'));
    stack.push(() => {
      throw second;
    });
    stack.push(() => Promise.reject(first));
    await expect(stack.unwind()).rejects.toBe(first);
    expect(ran).toEqual(['server']);
    expect(reported).toEqual([second]);
  });

  it('lets a second unwind during the first wait for the same run', async () => {
    let stops = 0;
    const stack = new StopStack();
    stack.push(async () => {
      await new Promise((r) => setTimeout(r, 20));
      stops++;
    });
    await Promise.all([stack.unwind(), stack.unwind()]);
    expect(stops).toBe(1);
  });
});
