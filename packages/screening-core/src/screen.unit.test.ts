import path from 'node:path';
import { readPersons } from './eval/datasets';
import { loadAllDemoLists, resolveSharedDataDir } from './loaders/demo-lists';
import { ScreeningQueryInvalidError } from './errors';
import { loadJapaneseTokenizer } from './matching/japanese-tokenizer';
import { createNameReader } from './matching/readings';
import { buildIndex } from './screening-index';
import { screen, screenExhaustive } from './screen';
import { DEFAULT_THRESHOLD, type ScreeningQuery } from './screening-query';

const dataDir = resolveSharedDataDir(process.env);
const snapshots = loadAllDemoLists(dataDir, '2026-01-01T00:00:00.000Z');
const index = buildIndex(snapshots);

function sample(): ScreeningQuery[] {
  const rows = [
    ...readPersons(dataDir, 'positives_un_treated.csv').filter((_, i) => i % 23 === 0),
    ...readPersons(dataDir, 'positives_us_congress_untreated.csv').filter((_, i) => i % 61 === 0),
    ...readPersons(dataDir, 'negatives_global.csv').filter((_, i) => i % 2500 === 0),
  ];
  return rows.map((r) => ({ name: r.full_name, ...(r.date_of_birth ? { birthDate: r.date_of_birth } : {}) }));
}

describe('screen', () => {
  it('finds the same hits through the index as a scan of every name', () => {
    const queries = sample();
    expect(queries.length).toBeGreaterThan(60);
    let withHits = 0;
    for (const q of queries) {
      const opts = { threshold: 0.7, limit: 50 };
      const fast = screen(index, q, opts);
      expect(fast).toEqual(screenExhaustive(index, q, opts));
      if (fast.length) withHits += 1;
    }
    expect(withHits).toBeGreaterThan(30);
  });

  it('finds the same hits through the index as a scan for names read as Korean and Japanese', async () => {
    const withReadings = buildIndex(snapshots, {
      reader: createNameReader(await loadJapaneseTokenizer()),
    });
    const cjk = readPersons(dataDir, 'negatives_global.csv')
      .filter((r) => withReadings.reader(r.full_name).length > 0)
      .filter((_, i) => i % 100 === 0)
      .map((r) => r.full_name);
    const names = [...cjk, '金正恩', '金日成', '김정은', '최룡해', '山田太郎', '麻原彰晃'];
    expect(names.length).toBeGreaterThan(100);
    let viaReading = 0;
    for (const name of names) {
      const opts = { threshold: 0.7, limit: 50 };
      const fast = screen(withReadings, { name }, opts);
      expect(fast).toEqual(screenExhaustive(withReadings, { name }, opts));
      if (fast.some((h) => h.explanation.reading)) viaReading += 1;
    }
    expect(viaReading).toBeGreaterThan(5);
  });

  it('returns hits sorted by score with list, source and explanation', () => {
    const hits = screen(
      index,
      { name: 'PUTIN Vladimir Vladimirovich', birthDate: '1952-10-07' },
      { threshold: 0.5 },
    );
    expect(hits[0]).toMatchObject({
      list: 'SANCTIONS',
      source: 'OFAC_SDN',
      matchedName: 'PUTIN, Vladimir Vladimirovich',
      score: 1,
    });
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect(hits[0]!.explanation.qualifiers).toEqual([
      expect.objectContaining({ kind: 'BIRTH_DATE', outcome: 'EXACT' }),
    ]);
  });

  it('restricts to the requested lists and entity type', () => {
    const q: ScreeningQuery = { name: 'Jennifer L. McClellan' };
    expect(screen(index, q).map((h) => h.list)).toContain('PEP');
    expect(screen(index, { ...q, lists: ['SANCTIONS'] })).toEqual([]);
    expect(screen(index, { ...q, entityType: 'ORGANIZATION' })).toEqual([]);
  });

  it('applies per-list thresholds', () => {
    const q: ScreeningQuery = { name: 'J. McClellan' };
    const s = screen(index, q, { threshold: 0.5 })[0]!.score;
    expect(s).toBeLessThan(1);
    expect(screen(index, q, { threshold: { PEP: s + 0.01 } })).toEqual([]);
    expect(screen(index, q, { threshold: { PEP: s } })).toHaveLength(1);
  });

  it('finds the demo adverse-media entry by an alias in Cyrillic', () => {
    const hits = screen(
      index,
      { name: 'Евгения Корваленко-Дриск', lists: ['ADVERSE_MEDIA'] },
      { threshold: DEFAULT_THRESHOLD },
    );
    expect(hits.map((h) => h.entryId)).toEqual(['AM-DEMO-012']);
  });

  it('finds names written as one word or two through the index, as a scan of every name does', () => {
    const mini = buildIndex([
      {
        list: 'SANCTIONS',
        source: 'TEST',
        version: 'v',
        entryCount: 4,
        loadedAt: '2026-01-01T00:00:00Z',
        entries: [
          {
            list: 'SANCTIONS',
            source: 'TEST',
            id: 'ONE-WORD',
            entityType: 'INDIVIDUAL',
            names: ['Abdullah Hassan'],
          },
          {
            list: 'SANCTIONS',
            source: 'TEST',
            id: 'TWO-WORDS',
            entityType: 'INDIVIDUAL',
            names: ['Abd al-Rahman Saleh'],
          },
          {
            list: 'SANCTIONS',
            source: 'TEST',
            id: 'ARABIC',
            entityType: 'INDIVIDUAL',
            names: ['عبد العزيز خالد'],
          },
          {
            list: 'SANCTIONS',
            source: 'TEST',
            id: 'CJK',
            entityType: 'INDIVIDUAL',
            names: ['XIA, Feng Bing'],
          },
        ],
      },
    ]);
    const cases: [string, string][] = [
      ['عبد الله حسن', 'ONE-WORD'],
      ['Abd Allah Hassan', 'ONE-WORD'],
      ['Abdulrahman Saleh', 'TWO-WORDS'],
      ['Abdurrahman Saleh', 'TWO-WORDS'],
      ['Abdulaziz Khaled', 'ARABIC'],
      ['Xia Fengbing', 'CJK'],
    ];
    for (const [name, id] of cases) {
      const hits = screen(mini, { name });
      expect(hits.map((h) => h.entryId)).toEqual([id]);
      expect(hits).toEqual(screenExhaustive(mini, { name }));
    }
  });

  it('gives the same hits when a query is repeated or another index is screened in between', () => {
    const q: ScreeningQuery = { name: 'Mohammad Shafiq Mohammadi', birthDate: '1970' };
    const first = screen(index, q, { threshold: 0.6, limit: 100 });
    screen(buildIndex(snapshots.slice(0, 1)), { name: 'Mohammad Ali' });
    // A query too long for the similarity memo (9 words) is scored directly, to the same hits.
    const long: ScreeningQuery = { name: 'Ali Hassan Abdullah Mohamed Ragab Abdel Rahman Saleh Omar' };
    expect(screen(index, long, { threshold: 0.6 })).toEqual(
      screenExhaustive(index, long, { threshold: 0.6 }),
    );
    expect(screen(index, q, { threshold: 0.6, limit: 100 })).toEqual(first);
  });

  it('rejects an empty name', () => {
    expect(() => screen(index, { name: '  ' })).toThrow(ScreeningQueryInvalidError);
  });

  it('reads the shared data in place', () => {
    expect(path.isAbsolute(dataDir)).toBe(true);
  });
});
