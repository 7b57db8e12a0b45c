import {
  abdCanonicalForm,
  CANONICAL_SIMILARITY,
  linked,
  makeCompoundToken,
  makeToken,
  similarityIfAtLeast,
  tokenSimilarity,
  unlinkedSimilarityIfAtLeast,
  type Token,
} from './token';

/** Deterministic words: real name spellings plus pseudo-random ones over a small alphabet (many near pairs). */
function words(count: number): string[] {
  const out = [
    'mohammed',
    'muhammad',
    'mohamed',
    'mhmd',
    'ahmed',
    'ahmad',
    'hassan',
    'hsn',
    'ali',
    'ly',
    'lee',
    'abdullah',
    'abdallah',
    'abdulla',
    'abdelaziz',
    'abdulaziz',
    'abdurrahman',
    'abdulrahman',
    'bdllh',
    'catherine',
    'katharina',
    'jon',
    'john',
    'smith',
    'smyth',
    'martha',
    'marhta',
    'dixon',
    'dicksonx',
    'aaaa',
    'aaab',
    'abcdefgh',
    'abcdxyzh',
    'xi',
    'jinping',
    'jin',
    'ping',
    'li',
    'j',
    'm',
    'o',
  ];
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  while (out.length < count) {
    let w = '';
    const n = 2 + Math.floor(next() * 9);
    for (let i = 0; i < n; i += 1) w += 'abdehilmnorsy'[Math.floor(next() * 13)];
    out.push(w);
  }
  return out;
}

describe('similarity bounds', () => {
  it('never hides a pair that reaches the minimum, and is exact from there', () => {
    const tokens = words(300).map(makeToken);
    const wrong: string[] = [];
    let skipped = 0;
    for (const a of tokens) {
      for (const b of tokens) {
        const exact = tokenSimilarity(a, b);
        const fast = similarityIfAtLeast(a, b, 0.8);
        // Words the blocking did not link may take the shorter path, to the same result.
        const paths = linked(a, b) ? [fast] : [fast, unlinkedSimilarityIfAtLeast(a, b, 0.8)];
        for (const s of paths) {
          const ok = exact >= 0.8 || a.initial || b.initial ? s === exact : s < 0.8;
          if (!ok) wrong.push(`${a.text}/${b.text}: ${s} for ${exact}`);
        }
        if (fast !== exact) skipped += 1;
      }
    }
    expect(wrong).toEqual([]);
    // The bound does its job: most pairs of unrelated words are decided without Jaro-Winkler.
    expect(skipped).toBeGreaterThan(tokens.length ** 2 / 2);
  });
});

describe('linked', () => {
  it('is the relation of the blocking keys, and symmetric', () => {
    const [mohammed, muhammad, mhmd, lee, ali] = ['mohammed', 'muhammad', 'mhmd', 'lee', 'ali'].map(
      makeToken,
    ) as Token[];
    expect(linked(mohammed!, muhammad!)).toBe(true); // same phonetic code
    expect(linked(mhmd!, mohammed!)).toBe(true); // vowelless word, same consonants
    expect(linked(mohammed!, mhmd!)).toBe(true);
    expect(linked(lee!, ali!)).toBe(false); // two written-out words never meet by skeleton
    expect(linked(makeToken('j'), makeToken('john'))).toBe(false); // initials link nothing
  });
});

describe('"Abd" names', () => {
  it('drop the article, however it is written', () => {
    for (const w of ['abdullah', 'abdallah', 'abdellah', 'abdillah'])
      expect(abdCanonicalForm(w)).toBe('abdlah');
    expect(abdCanonicalForm('abd' + 'allah')).toBe('abdlah');
    for (const w of ['abdulrahman', 'abdelrahman', 'abdurrahman', 'abdrahman'])
      expect(abdCanonicalForm(w)).toBe('abdrahman');
    expect(abdCanonicalForm('abdulaziz')).toBe(abdCanonicalForm('abd' + 'aziz'));
    expect(abdCanonicalForm('abdoulaye')).toBe('abdaye');
    // Arabic script (vowelless): عبد الله -> bd + llh, عبد الرحمن -> bd + lrhmn.
    expect(abdCanonicalForm('bdllh')).toBe('bdlh');
    expect(abdCanonicalForm('bdlrhmn')).toBe('bdrhmn');
    // Too short to be an "Abd X" name, or another word.
    for (const w of ['abd', 'abdi', 'abdou', 'abdul', 'bd', 'mohammed'])
      expect(abdCanonicalForm(w)).toBeUndefined();
  });

  it('link and compare by their canonical form, below an identical spelling', () => {
    const a = makeToken('abdulrahman');
    const b = makeToken('abdurrahman');
    expect(linked(a, b)).toBe(true);
    expect(tokenSimilarity(a, b)).toBeGreaterThanOrEqual(CANONICAL_SIMILARITY);
    expect(tokenSimilarity(a, b)).toBeLessThan(1);
    // Different names after "Abd" stay below the variants of one name.
    expect(tokenSimilarity(a, makeToken('abdulkarim'))).toBeLessThan(tokenSimilarity(a, b));
  });
});

describe('compound tokens', () => {
  it('carry their exact and canonical keys only, a written-out one no skeleton', () => {
    expect(makeCompoundToken('jianhua').keys).toEqual(['e:jianhua']);
    expect(makeCompoundToken('abdallah').keys).toEqual(['e:abdallah', 'e:abdlah', 'w:bdlh']);
    // A vowelless compound (two Arabic-script words) keeps its skeleton: it is the word itself.
    expect(makeCompoundToken('bdllh').keys).toEqual(['e:bdllh', 'v:bdlh', 'e:bdlh']);
    expect(makeCompoundToken('jianhua').phonetic).toEqual([]);
  });

  it('meet the words they spell', () => {
    expect(linked(makeToken('jianhua'), makeCompoundToken('jianhua'))).toBe(true);
    expect(linked(makeToken('abdullah'), makeCompoundToken('abdallah'))).toBe(true);
    expect(linked(makeCompoundToken('bdllh'), makeToken('abdullah'))).toBe(true);
    // "ahmed" + "adnan" has the consonants of "hmdn", but a written-out compound never meets by skeleton.
    expect(linked(makeToken('hmdn'), makeCompoundToken('ahmedadnan'))).toBe(false);
  });
});
