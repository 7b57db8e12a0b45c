import { compareNames } from './name-score';
import { withCompounds } from './name-side';
import { makeCompoundToken, makeToken } from './token';

describe('name comparison', () => {
  it('pairs two words written apart with one word written together, both ways', () => {
    const words = (...t: string[]) => t.map(makeToken);
    const arabic = compareNames(words('bd', 'llh'), words('abdullah'));
    expect(arabic.score).toBeGreaterThanOrEqual(0.95);
    expect(arabic.pairs).toEqual([{ query: 'bd llh', candidate: 'abdullah', similarity: 0.95 }]);
    const reverse = compareNames(words('abdullah', 'mohamed'), words('abd', 'allah', 'mohamed', 'ragab'));
    expect(reverse.pairs.map((p) => p.candidate)).toEqual(['mohamed', 'abd allah']);
    expect(reverse.unmatchedCandidate).toEqual(['ragab']);
    expect(compareNames(words('jian', 'hua', 'xie'), words('xie', 'jianhua')).score).toBe(1);
  });

  it('does not let a compound of one name count as two links', () => {
    // "Jian Hua" (a given name) against "Jianhua Li": one word of the list name shared, as with "Vladimir".
    expect(
      compareNames([makeToken('jian'), makeToken('hua')], [makeToken('jianhua'), makeToken('li')]).score,
    ).toBe(0);
  });

  it('builds compounds of adjacent full words only, and not too long ones', () => {
    const side = withCompounds(['j', 'abd', 'allah', 'vladimirovich'].map(makeToken), makeCompoundToken);
    expect(side.compounds.map((c) => c?.text)).toEqual([undefined, 'abdallah', undefined]);
  });
});
