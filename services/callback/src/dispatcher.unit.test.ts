import { refreshInterval, servesReadAhead } from './dispatcher';

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

  it('reads the queue at least every two minutes, however slow the last read was (a store hiccup)', () => {
    expect(refreshInterval(5000, 60_000)).toBe(120_000);
  });
});

/**
 * After a slow due read (decision 0071) the rounds take their due entries from what it read, while some
 * are left and for at most `readAhead` times the read's duration; then the store is read again.
 */
describe('servesReadAhead', () => {
  it('serves the entries read ahead while some are left and they are young enough', () => {
    expect(servesReadAhead(1500, 0, 2500, 10)).toBe(true);
    expect(servesReadAhead(1, 24_999, 2500, 10)).toBe(true);
  });

  it('reads the store again once they are used up, too old, or reading ahead is off', () => {
    expect(servesReadAhead(0, 10, 2500, 10)).toBe(false);
    expect(servesReadAhead(1500, 25_000, 2500, 10)).toBe(false);
    expect(servesReadAhead(1500, 10, 2500, 0)).toBe(false);
  });

  it('reads the store again after 30 s, however slow the read was (a store hiccup)', () => {
    expect(servesReadAhead(10, 29_999, 20_000, 10)).toBe(true);
    expect(servesReadAhead(10, 30_000, 20_000, 10)).toBe(false);
  });
});
