import path from 'node:path';
import { ListFormatError } from '../errors';
import { resolveSharedDataDir } from './demo-lists';
import { loadUnConsolidated } from './un';

const file = path.join(resolveSharedDataDir(process.env), 'lists', 'UN_consolidated.xml');

describe('UN consolidated XML loader', () => {
  const snapshot = loadUnConsolidated(file, '2026-01-01T00:00:00.000Z');

  it('reads 730 individuals and 273 entities', () => {
    expect(snapshot.entryCount).toBe(1003);
    expect(snapshot.entries.filter((e) => e.entityType === 'INDIVIDUAL')).toHaveLength(730);
    expect(snapshot.entries.filter((e) => e.entityType === 'ORGANIZATION')).toHaveLength(273);
  });

  it('joins the name parts, resolves nationality to ISO codes and keeps the birth year', () => {
    const badege = snapshot.entries.find((e) => e.id === '6907993')!;
    expect(badege.names[0]).toBe('ERIC BADEGE');
    expect(badege.countries).toEqual(['CD']);
    expect(badege.birthDates).toEqual(['1971']);
    expect(badege.identifiers).toContainEqual({ type: 'UN_REFERENCE', value: 'CDi.001' });
  });

  it('adds good-quality aliases and names in original script', () => {
    expect(snapshot.entries.some((e) => e.names.some((n) => /[\u0600-\u06ff]/.test(n)))).toBe(true);
    expect(snapshot.entries.reduce((n, e) => n + e.names.length, 0)).toBeGreaterThan(3000);
  });

  it('rejects a document that is not the UN schema', () => {
    expect(() => loadUnConsolidated(Buffer.from('<other/>'), 'x')).toThrow(ListFormatError);
  });
});
