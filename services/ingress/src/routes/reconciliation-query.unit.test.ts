import { registrationPrefixes } from './reconciliation-query';

/** Every instant of the window must start with one of the prefixes, in order, and nothing else be read. */
describe('registrationPrefixes', () => {
  it('reads a window within one day by that day', () => {
    expect(registrationPrefixes('2026-05-18T00:00:00.000Z', '2026-05-18T23:59:59.999Z')).toEqual([
      '2026-05-18',
    ]);
  });

  it('reads a window across midnight, months and years day by day, in order', () => {
    expect(registrationPrefixes('2026-12-30T22:00:00.000Z', '2027-01-02T01:00:00.000Z')).toEqual([
      '2026-12-30',
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
    ]);
    expect(registrationPrefixes('2028-02-28T00:00:00.000Z', '2028-03-01T00:00:00.000Z')).toEqual([
      '2028-02-28',
      '2028-02-29',
      '2028-03-01',
    ]);
  });

  it('reads a longer window by month, then by year', () => {
    const months = registrationPrefixes('2026-01-15T00:00:00.000Z', '2026-04-01T00:00:00.000Z');
    expect(months).toEqual(['2026-01', '2026-02', '2026-03', '2026-04']);
    const years = registrationPrefixes('2001-06-01T00:00:00.000Z', '2026-05-18T00:00:00.000Z')!;
    expect(years[0]).toBe('2001');
    expect(years.at(-1)).toBe('2026');
    expect(years).toHaveLength(26);
  });

  it('covers every instant of a window with the prefix of its own day, month or year', () => {
    for (const [from, till] of [
      ['2026-03-30T10:00:00.000Z', '2026-05-30T09:00:00.000Z'], // 62 days: by day
      ['2026-03-30T10:00:00.000Z', '2026-05-31T09:00:00.000Z'], // 63 days: by month
      ['1999-12-31T23:59:59.999Z', '2011-01-01T00:00:00.000Z'], // 133 months: by year
    ] as const) {
      const prefixes = registrationPrefixes(from, till)!;
      expect([...prefixes].sort()).toEqual(prefixes);
      for (let t = Date.parse(from); t <= Date.parse(till); t += 3_600_000 * 7) {
        const iso = new Date(t).toISOString();
        expect(prefixes.some((p) => iso.startsWith(p))).toBe(true);
      }
      // Nothing before the window's first day, month or year, nor after its last.
      expect(from.startsWith(prefixes[0]!)).toBe(true);
      expect(till.startsWith(prefixes.at(-1)!)).toBe(true);
    }
  });

  it('leaves a window outside years 0100-9999 to one query', () => {
    expect(registrationPrefixes('9999-12-31T00:00:00.000Z', '+010000-01-01T00:00:00.000Z')).toBeUndefined();
    expect(registrationPrefixes('0050-01-01T00:00:00.000Z', '0050-01-02T00:00:00.000Z')).toBeUndefined();
    expect(registrationPrefixes('0100-01-01T00:00:00.000Z', '0100-01-01T10:00:00.000Z')).toEqual([
      '0100-01-01',
    ]);
  });
});
