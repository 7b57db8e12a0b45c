import { isOrphan } from './orphan-rule';

describe('isOrphan: may a retry reclaim a held communicationNumber reservation?', () => {
  const now = new Date('2025-01-01T12:00:00Z');
  const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
  const held = { customerExtId: 'C-1', reservedAt: minutesAgo(20) };
  const retry = { customerExtId: 'C-1', now };
  const FIFTEEN_MINUTES = 15 * 60_000;
  const lookups: string[] = [];
  const published = (answer: boolean) => async () => {
    lookups.push('published');
    return answer;
  };
  beforeEach(() => (lookups.length = 0));

  it('an old reservation of the same customer whose command was never acknowledged is an orphan', async () => {
    expect(await isOrphan(held, retry, FIFTEEN_MINUTES, published(false))).toBe(true);
  });

  it('a reservation whose command Kafka acknowledged is never one, however old', async () => {
    expect(await isOrphan(held, retry, FIFTEEN_MINUTES, published(true))).toBe(false);
  });

  it('another customer, a young reservation or no orphan policy: not one, and the record is not read', async () => {
    expect(await isOrphan(held, { ...retry, customerExtId: 'C-2' }, FIFTEEN_MINUTES, published(false))).toBe(
      false,
    );
    expect(
      await isOrphan({ ...held, reservedAt: minutesAgo(14) }, retry, FIFTEEN_MINUTES, published(false)),
    ).toBe(false);
    expect(await isOrphan(held, retry, 0, published(false))).toBe(false);
    expect(await isOrphan(held, retry, undefined, published(false))).toBe(false);
    expect(lookups).toEqual([]);
  });

  it('exactly the age is old enough', async () => {
    expect(
      await isOrphan({ ...held, reservedAt: minutesAgo(15) }, retry, FIFTEEN_MINUTES, published(false)),
    ).toBe(true);
  });
});
