import type { ListEntry, ListSnapshot } from '../model';
import { buildIndex } from '../screening-index';
import { scoreEntry } from '../score';
import { screen, screenExhaustive } from '../screen';
import { DEFAULT_THRESHOLD } from '../screening-query';
import { READING_PENALTY } from '../query-variants';
import { foldName } from './normalize';
import { loadJapaneseTokenizer } from './japanese-tokenizer';
import { createNameReader, KOREAN_READER, MAX_READABLE_LENGTH, type NameReader } from './readings';
import { koreanListSpelling } from './romanize';

const entry = (id: string, names: string[]): ListEntry => ({
  list: 'SANCTIONS',
  source: 'TEST',
  id,
  entityType: 'INDIVIDUAL',
  names,
});
const snapshot = (entries: ListEntry[]): ListSnapshot => ({
  list: 'SANCTIONS',
  source: 'TEST',
  version: 'v1',
  entryCount: entries.length,
  loadedAt: '2026-01-01T00:00:00.000Z',
  entries,
});
const pair = (query: string, listed: string, reader: NameReader): number =>
  scoreEntry({ name: query }, entry('E1', [listed]), reader)?.score ?? 0;
/** A full match through a reading: a reading is a guess at the language, so it scores a little less. */
const READ = 1 - READING_PENALTY;

// The real kuromoji IPA dictionary, as the screening service loads it.
let withJapanese: NameReader;
beforeAll(async () => {
  withJapanese = createNameReader(await loadJapaneseTokenizer());
});

describe('Korean readings', () => {
  it('reads Chinese characters the Korean way, with 金 as the surname Kim (watchman pair 金正恩 ~ Kim Jong Un)', () => {
    expect(KOREAN_READER('金正恩').map((r) => r.name)).toEqual(['kim jong un']);
    expect(pair('金正恩', 'Kim Jong Un', KOREAN_READER)).toBe(READ);
    expect(pair('金日成', 'KIM Il Sung', KOREAN_READER)).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
  });

  it('spells Hangul the way lists do: usual surnames, "eo" as "o", "eu" as "u"', () => {
    expect(koreanListSpelling('박지성')).toBe('park ji song');
    expect(koreanListSpelling('이민호')).toBe('lee min ho');
    expect(koreanListSpelling('최룡해')).toBe('choi ryong hae');
    expect(koreanListSpelling('리영호')).toBe('ri yong ho');
    expect(pair('박지성', 'Park Ji Sung', KOREAN_READER)).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
    expect(pair('이민호', 'Lee Min Ho', KOREAN_READER)).toBe(READ);
  });

  it('romanises Hangul by the Revised Romanization in the name as written', () => {
    expect(foldName('박지성')).toBe('bak ji seong');
    expect(foldName('최룡해')).toBe('choe ryong hae');
  });
});

describe('Japanese readings', () => {
  it('reads kanji names with the dictionary, long vowels as passports write them', () => {
    const japanese = withJapanese('山田太郎').filter((r) => r.system === 'japanese');
    expect(japanese).toEqual([{ system: 'japanese', name: 'yamada taro' }]);
    expect(pair('山田太郎', 'Yamada Taro', withJapanese)).toBe(READ);
    expect(pair('田中花子', 'TANAKA, Hanako', withJapanese)).toBe(READ);
    expect(pair('麻原彰晃', 'ASAHARA, Shoko', withJapanese)).toBe(READ);
  });

  it('needs the dictionary: without it a kanji name is read as Mandarin only', () => {
    expect(pair('山田太郎', 'Yamada Taro', KOREAN_READER)).toBe(0);
  });

  it('gives a Chinese name no made-up Japanese reading', () => {
    // 习 is simplified Chinese, not in the Japanese dictionary; the name stays pinyin (and Korean).
    expect(withJapanese('习近平').some((r) => r.system === 'japanese')).toBe(false);
    expect(pair('习近平', 'Xi Jinping', withJapanese)).toBe(1);
  });

  it('romanises kana in Hepburn', () => {
    expect(foldName('イチロウ')).toBe('ichirou');
    expect(foldName('やまだ たろう')).toBe('yamada tarou');
  });
});

describe('screening with readings', () => {
  const index = (reader: NameReader) =>
    buildIndex(
      [
        snapshot([
          entry('KP1', ['KIM, Jong Un']),
          entry('JP1', ['YAMADA, Taro']),
          entry('CN1', ['WANG Wei']),
          entry('LAT', ['John Smith']),
        ]),
      ],
      { reader },
    );

  it('finds a list name through a reading and says which reading matched', () => {
    const [hit] = screen(index(withJapanese), { name: '金正恩' });
    expect(hit).toMatchObject({ entryId: 'KP1', score: READ });
    expect(hit!.explanation.reading).toEqual({ system: 'korean', name: 'kim jong un' });
    const [jp] = screen(index(withJapanese), { name: '山田太郎' });
    expect(jp).toMatchObject({ entryId: 'JP1', score: READ });
    expect(jp!.explanation.reading).toEqual({ system: 'japanese', name: 'yamada taro' });
  });

  it('keeps a match of the name as written without a reading', () => {
    const [hit] = screen(index(withJapanese), { name: '王伟' });
    expect(hit).toMatchObject({ entryId: 'CN1', score: 1 });
    expect(hit!.explanation.reading).toBeUndefined();
  });

  it('gives each entry once, at its best score, the blocked index agreeing with the exhaustive scan', () => {
    const ix = index(withJapanese);
    for (const name of ['金正恩', '山田太郎', '김정은', '王伟']) {
      const hits = screen(ix, { name }, { threshold: 0.5 });
      expect(new Set(hits.map((h) => h.entryId)).size).toBe(hits.length);
      expect(hits).toEqual(screenExhaustive(ix, { name }, { threshold: 0.5 }));
    }
  });

  it('does not let a reading match by near-syllables (the negative alerts the readings would add)', () => {
    // 성훈 최 reads "song hun choe": choe is exact, but song ~ yong and hun ~ chun are two inexact words.
    const ix = buildIndex([snapshot([entry('KP2', ['CHOE, Chun Yong'])])], { reader: withJapanese });
    expect(screen(ix, { name: '성훈 최' })).toEqual([]);
    expect(pair('성훈 최', 'CHOE, Chun Yong', KOREAN_READER)).toBeLessThan(DEFAULT_THRESHOLD);
  });

  it('survives hostile input: control characters reach no dictionary, a very long name gets no readings', () => {
    // kuromoji throws on a NUL inside its lattice; the reader must not.
    expect(() => withJapanese('金\u0000正恩')).not.toThrow();
    expect(withJapanese('金\u0000正恩').map((r) => r.system)).toContain('korean');
    // Thousands of characters would multiply the work of one screening (1.7 s for 5,000 before the cap).
    expect(withJapanese('金'.repeat(MAX_READABLE_LENGTH + 1))).toEqual([]);
    expect(withJapanese('김'.repeat(5000))).toEqual([]);
    expect(screen(index(withJapanese), { name: '金'.repeat(5000) })).toEqual([]);
  });

  it('applies the limit after the reading rules, and picks the alias that passes them', () => {
    const two = buildIndex([snapshot([entry('A', ['KIM, Jongg Unn']), entry('B', ['KIM Jong Ung'])])], {
      reader: withJapanese,
    });
    // A's alias rests on two inexact words (refused through a reading), B's on one.
    expect(screen(two, { name: '김정은' }, { limit: 1 }).map((h) => h.entryId)).toEqual(['B']);
    const aliases = buildIndex([snapshot([entry('AB', ['KIM, Jongg Unn', 'KIM Jong Ung'])])], {
      reader: withJapanese,
    });
    expect(screen(aliases, { name: '김정은' })[0]).toMatchObject({
      entryId: 'AB',
      matchedName: 'KIM Jong Ung',
    });
  });

  it('keeps the name as written in the explanation of a hit through a reading (suppression is keyed by it)', () => {
    const [hit] = screen(index(withJapanese), { name: '金正恩' });
    expect(hit!.explanation.queryTokens).toEqual(['jin', 'zheng', 'en']);
    expect(hit!.explanation.reading).toEqual({ system: 'korean', name: 'kim jong un' });
  });

  it('scores a pair through its readings with no threshold', () => {
    // The reading scores 0.66 - 0.03: below any alert threshold, still the pair's score.
    expect(pair('박지선', 'PARK, Ji Sung', KOREAN_READER)).toBeGreaterThan(0.6);
  });

  it('reads nothing in a Latin name', () => {
    expect(withJapanese('John Smith')).toEqual([]);
    expect(screen(index(withJapanese), { name: 'John Smith' })[0]!.explanation.reading).toBeUndefined();
  });
});
