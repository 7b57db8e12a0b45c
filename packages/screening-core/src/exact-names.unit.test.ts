import { loadAllDemoLists, resolveSharedDataDir } from './loaders/demo-lists';
import { buildIndex } from './screening-index';
import { screen, screenExhaustive } from './screen';
import type { ScreeningQuery } from './screening-query';

// Every list of the shared data folder, loaded as the screening service and the evaluation load them.
const snapshots = loadAllDemoLists(resolveSharedDataDir(process.env), '2026-01-01T00:00:00.000Z');
const index = buildIndex(snapshots);

function ownScore(query: ScreeningQuery, source: string, entryId: string): number {
  const hits = screen(index, query, { threshold: 0.99, limit: 1000 });
  return hits.find((h) => h.source === source && h.entryId === entryId)?.score ?? 0;
}

describe('exact names', () => {
  it('finds every primary name and alias of every list at score 1, with and without the entity type', () => {
    const missed: string[] = [];
    let names = 0;
    for (const entry of index.entries) {
      for (const name of entry.names) {
        names += 1;
        // Failures name the entry, not the listed name (list names are public, but keep output short).
        if (ownScore({ name, entityType: entry.entityType }, entry.source, entry.id) < 1)
          missed.push(`${entry.source}:${entry.id} typed`);
        if (ownScore({ name }, entry.source, entry.id) < 1)
          missed.push(`${entry.source}:${entry.id} untyped`);
      }
    }
    expect(names).toBeGreaterThan(35_000);
    expect(missed).toEqual([]);
  });

  it('screens a name without a type both as a person and as an organisation: the better parse wins', () => {
    // The exact name of an SDN entity: as a person, "company" stays a word and the score fell below 0.5.
    const [top] = screen(index, { name: 'TAMAS COMPANY' });
    expect(top).toMatchObject({ source: 'OFAC_SDN', entityType: 'ORGANIZATION', score: 1 });
    expect(top!.explanation.queryTokens).toEqual(['tamas']);
    // The same name with another legal form is still the organisation.
    expect(screen(index, { name: 'Tamas Co. Ltd' })[0]).toMatchObject({ source: 'OFAC_SDN', score: 1 });
  });

  it('keeps the entity type of a typed query (customer screening): an individual is parsed as a person', () => {
    const hits = screen(index, { name: 'TAMAS COMPANY', entityType: 'INDIVIDUAL' }, { threshold: 0.5 });
    expect(hits.every((h) => h.entityType === 'INDIVIDUAL')).toBe(true);
  });

  it('finds names made of single letters, written apart or together', () => {
    expect(screen(index, { name: 'K M A', entityType: 'VESSEL' })[0]).toMatchObject({ score: 1 });
    expect(screen(index, { name: 'B.S. Company' })[0]).toMatchObject({ source: 'OFAC_SDN', score: 1 });
  });

  it('finds the same hits through the index as a scan for queries without a type', () => {
    for (const name of ['TAMAS COMPANY', 'Tamas Co. Ltd', 'M/V LADY D', 'Mohammad Shafiq Mohammadi', 'G-9']) {
      const opts = { threshold: 0.7, limit: 50 };
      expect(screen(index, { name }, opts)).toEqual(screenExhaustive(index, { name }, opts));
    }
  });
});
