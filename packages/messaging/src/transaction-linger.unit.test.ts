import { DEFAULT_LINGER_RULE, TransactionLinger } from './transaction-linger';

/** The linger's rule (decision 0086): wait after a batch only when other customers' messages are about. */
describe('transaction linger', () => {
  const rule = { ms: 20, windowMs: 100, minKeys: 3 };

  it('is off by default, over 100 ms and 3 keys when set', () => {
    expect(DEFAULT_LINGER_RULE).toEqual({ ...rule, ms: 0 });
  });

  it('never waits before the first batch of a partition', () => {
    expect(new TransactionLinger(rule).delay(1000)).toBe(0);
  });

  it("does not delay one customer's messages arriving back to back (light load)", () => {
    const l = new TransactionLinger(rule);
    l.batchEnded(['DEMO:C-1'], 1000);
    expect(l.delay(1005)).toBe(0);
    l.batchEnded(['DEMO:C-1', 'DEMO:C-1'], 1010);
    expect(l.delay(1012)).toBe(0);
    // Two customers are not yet load.
    l.batchEnded(['DEMO:C-2'], 1015);
    expect(l.delay(1016)).toBe(0);
  });

  it('waits out the rest of the linger after the last batch once three customers are about', () => {
    const l = new TransactionLinger(rule);
    l.batchEnded(['A', 'B'], 1000);
    l.batchEnded(['C'], 1010);
    expect(l.delay(1014)).toBe(16);
    expect(l.delay(1029)).toBe(1);
    // The linger has passed since the last batch: at once.
    expect(l.delay(1030)).toBe(0);
    expect(l.delay(1500)).toBe(0);
  });

  it('counts only the keys seen within the window, each at its latest time', () => {
    const l = new TransactionLinger(rule);
    l.batchEnded(['A', 'B'], 1000);
    l.batchEnded(['A'], 1080);
    l.batchEnded(['C'], 1105);
    // B was last seen at 1000, outside the window that ends at 1110: A and C only.
    expect(l.delay(1110)).toBe(0);
    l.batchEnded(['D'], 1115);
    // A (1080), C, D within 1020..1120.
    expect(l.delay(1120)).toBe(15);
    // A leaves the window at 1181: C and D only.
    l.batchEnded(['C'], 1185);
    expect(l.delay(1190)).toBe(0);
  });

  it('is off at 0 ms, and a clock that went back does not make a wait', () => {
    const off = new TransactionLinger({ ...rule, ms: 0 });
    off.batchEnded(['A', 'B', 'C', 'D'], 1000);
    expect(off.delay(1001)).toBe(0);
    const l = new TransactionLinger(rule);
    l.batchEnded(['A', 'B', 'C'], 1000);
    expect(l.delay(990)).toBe(0);
  });
});
