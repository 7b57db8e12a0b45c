import type { ListEntry } from '../model';
import { DEFAULT_THRESHOLD, scoreEntry, type ScreeningQuery } from '../screening';
import { normalizeCountry } from './countries';
import { foldName, nameTokens } from './normalize';

const entry = (names: string[], extra: Partial<ListEntry> = {}): ListEntry => ({
  list: 'SANCTIONS',
  source: 'TEST',
  id: 'E1',
  entityType: 'INDIVIDUAL',
  names,
  ...extra,
});
const score = (query: ScreeningQuery | string, e: ListEntry): number =>
  scoreEntry(typeof query === 'string' ? { name: query } : query, e)?.score ?? 0;

describe('normalisation', () => {
  it('folds accents and ligatures', () => {
    expect(foldName('José Müller-Łukasz Straße')).toBe('jose muller lukasz strasse');
    expect(score('José Müller', entry(['JOSE MULLER']))).toBe(1);
  });

  it('transliterates Cyrillic and Greek', () => {
    expect(foldName('Владимир Путин')).toBe('vladimir putin');
    expect(foldName('Νικόλαος')).toBe('nikolaos');
    expect(score('Владимир Путин', entry(['PUTIN, Vladimir']))).toBe(1);
  });

  it('transliterates Arabic and CJK to Latin letters', () => {
    expect(foldName('محمد علي')).toMatch(/^[a-z ]+$/);
    expect(foldName('王伟')).toBe('wang wei');
    expect(foldName('김정은')).toBe('gim jeong eun');
  });

  it('drops titles and name particles', () => {
    expect(nameTokens('Sheikh Mohammed bin Rashid', 'person')).toEqual(['mohammed', 'rashid']);
    expect(nameTokens('Präsident Putin', 'person')).toEqual(['putin']);
  });

  it('drops company legal forms for organisations only', () => {
    expect(nameTokens('Acme Trading S.A.', 'organization')).toEqual(['acme', 'trading']);
    expect(nameTokens('OOO Romashka', 'organization')).toEqual(['romashka']);
    expect(nameTokens('Ab Sa', 'person')).toEqual(['ab', 'sa']);
  });

  it('resolves country names, UN long forms and codes', () => {
    expect(normalizeCountry('af')).toBe('AF');
    expect(normalizeCountry('Iran (Islamic Republic of)')).toBe('IR');
    expect(normalizeCountry('Democratic Republic of the Congo')).toBe('CD');
    expect(normalizeCountry('Russian Federation')).toBe('RU');
    expect(normalizeCountry('Atlantis')).toBeUndefined();
  });
});

describe('name matching', () => {
  it('ignores token order and the comma of "SURNAME, Given"', () => {
    expect(score('Ali Mohamed', entry(['Mohamed Ali']))).toBe(1);
    expect(score('Vladimir Putin', entry(['PUTIN, Vladimir']))).toBe(1);
  });

  it('tolerates spelling variants and typos, using the phonetic key', () => {
    expect(score('Mohammed Hassan', entry(['Muhammad Hasan']))).toBeGreaterThan(DEFAULT_THRESHOLD);
    expect(score('Catherine Zeta', entry(['Katherine Zeta']))).toBeGreaterThan(DEFAULT_THRESHOLD);
    expect(score('Qaddafi Muammar', entry(['Muammar Gaddafi']))).toBeGreaterThan(DEFAULT_THRESHOLD);
  });

  it('accepts an initial for a given name, below a full match', () => {
    const s = score('J. Smith', entry(['John Smith']));
    expect(s).toBeGreaterThan(DEFAULT_THRESHOLD);
    expect(s).toBeLessThan(1);
    expect(score('J. Doe', entry(['John Smith']))).toBe(0);
  });

  it('tolerates a missing middle name, but not a different surname', () => {
    const missingMiddle = score('Nicolas Maduro', entry(['Nicolas Moros Maduro']));
    expect(missingMiddle).toBeGreaterThan(DEFAULT_THRESHOLD);
    expect(missingMiddle).toBeLessThan(1);
    expect(score('Nicolas Maduro', entry(['Nicolas Moros Perez']))).toBeLessThan(DEFAULT_THRESHOLD);
  });

  it('needs two linked words: a shared given name is not a match', () => {
    expect(score('Vladimir Putin', entry(['VLADIMIR BILIY']))).toBe(0);
    expect(score('Maria Dominguez', entry(['Maria Jimenez']))).toBe(0);
  });

  it('matches organisations whatever their legal form', () => {
    const org = (names: string[]) => entry(names, { entityType: 'ORGANIZATION' });
    expect(
      score({ name: 'Acme Trading LLC', entityType: 'ORGANIZATION' }, org(['ACME TRADING LIMITED'])),
    ).toBe(1);
    expect(score({ name: 'OOO Romashka', entityType: 'ORGANIZATION' }, org(['Romashka JSC']))).toBe(1);
  });

  it('explains the match', () => {
    const hit = scoreEntry({ name: 'Jon Smyth' }, entry(['SMITH, John']))!;
    expect(hit.explanation.matchedName).toBe('SMITH, John');
    expect(hit.explanation.queryTokens).toEqual(['jon', 'smyth']);
    expect(hit.explanation.candidateTokens).toEqual(['smith', 'john']);
    expect(hit.explanation.tokenPairs.map((p) => [p.query, p.candidate])).toEqual(
      expect.arrayContaining([
        ['jon', 'john'],
        ['smyth', 'smith'],
      ]),
    );
  });
});

describe('qualifiers', () => {
  const person = (birthDates: string[]) => entry(['Jon Smyth'], { birthDates });
  const q = (birthDate: string): ScreeningQuery => ({ name: 'John Smith', birthDate });
  const base = score('John Smith', entry(['Jon Smyth']));

  it('raises the score for an exact date of birth and a little for the same year', () => {
    const exact = score(q('1970-05-01'), person(['1970-05-01']));
    const year = score(q('1970-05-01'), person(['1970']));
    expect(exact).toBeGreaterThan(year);
    expect(year).toBeGreaterThan(base);
  });

  it('barely lowers it for one year apart and lowers it clearly for a different year', () => {
    const close = score(q('1970-05-01'), person(['1971']));
    const far = score(q('1970-05-01'), person(['1985-01-01']));
    expect(close).toBeLessThan(base);
    expect(base - close).toBeLessThan(0.05);
    expect(far).toBeLessThan(close - 0.1);
    const hit = scoreEntry(q('1970-05-01'), person(['1985-01-01']))!;
    expect(hit.explanation.qualifiers).toEqual([
      expect.objectContaining({ kind: 'BIRTH_DATE', outcome: 'MISMATCH' }),
    ]);
  });

  it('uses nationality in both directions', () => {
    const withCountry = (countries: string[]) =>
      score({ name: 'John Smith', countries: ['United Kingdom'] }, entry(['Jon Smyth'], { countries }));
    expect(withCountry(['GB'])).toBeGreaterThan(base);
    expect(withCountry(['IR'])).toBeLessThan(base);
  });

  it('raises the score on an equal identifier and lowers it on a different IMO', () => {
    const vessel = entry(['MV OCEAN STAR'], {
      entityType: 'VESSEL',
      identifiers: [{ type: 'IMO', value: '9187629' }],
    });
    const ocean = (imo: string) =>
      scoreEntry(
        { name: 'Ocean Starr', entityType: 'VESSEL', identifiers: [{ type: 'IMO', value: imo }] },
        vessel,
      )!;
    const plain = scoreEntry({ name: 'Ocean Starr', entityType: 'VESSEL' }, vessel)!;
    expect(ocean('IMO 9187629').score).toBeGreaterThan(plain.score);
    expect(ocean('9999999').score).toBeLessThan(plain.score - 0.1);
    expect(ocean('9999999').explanation.qualifiers[0]).toMatchObject({
      kind: 'IDENTIFIER',
      outcome: 'CONFLICT',
    });
  });
});
