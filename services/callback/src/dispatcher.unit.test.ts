import { refreshInterval } from './dispatcher';

/**
 * The dispatcher reads the whole queue (its view of queued lanes) at the configured interval, unless the
 * last read took longer than a tenth of it: a queue that grew while a receiver was down is then read at
 * most a tenth of the time, so the store keeps serving the rounds and the consumed batches (decision 0070).
 */
describe('refreshInterval', () => {
  it('keeps the configured interval while a read of the queue is quick', () => {
    expect(refreshInterval(5000, 0)).toBe(5000);
    expect(refreshInterval(5000, 120)).toBe(5000);
    expect(refreshInterval(5000, 500)).toBe(5000);
  });

  it('waits ten times the last read when that is longer', () => {
    expect(refreshInterval(5000, 501)).toBe(5010);
    expect(refreshInterval(5000, 4400)).toBe(44000);
    expect(refreshInterval(200, 100)).toBe(1000);
  });
});
