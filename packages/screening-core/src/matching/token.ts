import doubleMetaphone from 'talisman/phonetics/double-metaphone';
import jaroWinkler from 'talisman/metrics/jaro-winkler';

/** A name token with what matching and blocking need, computed once per distinct token. */
export interface Token {
  text: string;
  /** Double Metaphone primary and alternate codes (distinct, non-empty). */
  phonetic: string[];
  /**
   * Blocking keys: the token, its one-deletion variants (tokens of 4+ letters), its phonetic codes, its
   * consonant skeleton and, for an "Abd ..." name, its canonical form and that form's skeleton. Two
   * tokens are "linked" when they share a key: equal, one edit apart, sounding alike, a vowelless word
   * with a written-out one of the same consonants, or the same "Abd" name ({@link linked}).
   */
  keys: string[];
  initial: boolean;
  /**
   * Set for a word without vowels (from a script that writes none, such as Arabic: "mhmd"): its
   * consonant skeleton, compared with the skeleton of the other word ("mohamed" -> "mhmd").
   */
  skeleton?: string;
  /** {@link consonantSkeleton} of the text, kept so comparisons with vowelless words need no regex. */
  consonants: string;
  /** {@link letterMask} of the text: bounds Jaro-Winkler in O(1) ({@link similarityIfAtLeast}). */
  letters: number;
  /** Letters of the text beyond its distinct ones (length - bits of `letters`), for the same bound. */
  repeats: number;
  /** For an "Abd ..." name, the word in {@link abdCanonicalForm} (compared, and keyed, as well as the word). */
  canonical?: Token;
}

/** One bit per letter present in the text (digits share the six spare bits, which only loosens the bound). */
function letterMask(text: string): number {
  let mask = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    mask |= 1 << (c >= 97 && c <= 122 ? c - 97 : 26 + (c % 6));
  }
  return mask;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Consonant skeleton: vowels (and the semivowels w, y) removed, doubled letters collapsed, and Latin
 * consonants Arabic script has no letter for written as the letter it uses (p -> b, v -> f, c and q -> k;
 * gh, the usual rendering of both غ and a Latin g, -> g): "Pena" is written بينا, "Sergio" سرغيو.
 * Arabic script also writes a g as ج (Egyptian usage: جمال is Gamal as often as Jamal), so j and g are
 * one consonant; a ch as تش (`tsh`: "Yuryevich" يوريفيتش), so tsh is ch; ph as ف (f) and x as كس (ks).
 */
export function consonantSkeleton(text: string): string {
  return text
    .replace(/[aeiouyw]/g, '')
    .replace(/tsh/g, 'ch')
    .replace(/ph/g, 'f')
    .replace(/x/g, 'ks')
    .replace(/gh/g, 'g')
    .replace(/j/g, 'g')
    .replace(/p/g, 'b')
    .replace(/v/g, 'f')
    .replace(/c(?!h)|q/g, 'k')
    .replace(/(.)\1+/g, '$1');
}

/**
 * The skeleton of a vowelless word without the Arabic article written on it (الفاضلي, `lfdly`, for
 * Al-Fadhali, whose list spelling drops "al" as a particle), or undefined: a skeleton starting with l
 * and three or more consonants after it.
 */
function withoutArticle(skeleton: string): string | undefined {
  return skeleton.length >= 4 && skeleton.charCodeAt(0) === 108 ? skeleton.slice(1) : undefined;
}

/** Letters of a Latin transcription that stand for one consonant. */
const DIGRAPHS = /kh|sh|th|dh|gh|ch|zh|./g;

function vowelless(text: string): boolean {
  return /^[a-z]{2,}$/.test(text) && !/[aeiou]/.test(text);
}

/** Similarity given to an initial that agrees with the first letter of a full name ("J" ~ "John"). */
export const INITIAL_SIMILARITY = 0.75;

/** Deletion variants are built only for tokens this long; shorter ones would link almost anything. */
const MIN_DELETION_LENGTH = 4;

/**
 * Arabic "Abd X" names ("servant of X") are written with the article in many ways, as one word or two:
 * Abdullah, Abdallah, Abd Allah, Abdel Aziz, Abdul-Aziz, Abd al-Aziz, Abdurrahman, Abdelrahman, and in
 * Arabic script عبد الله (`bd llh`), عبد الرحمن (`bd lrhmn`). The canonical form drops that article: "abd"
 * + X without a leading vowel-and-l ("ul", "el", "al", "oul") or, for an assimilated article, without
 * the vowel and one of the doubled consonants ("ur-r", "us-s"); a vowelless "bd" + X loses a leading "l".
 * So Abdullah, Abdallah and Abd Allah all become "abdlah", Abdulrahman, Abdurrahman and Abd al-Rahman
 * "abdrahman", and `bd llh` "bdlh" (consonants of "abdlah"). Undefined for other words, and when X would
 * be too short to mean anything ("abdi", "abdou").
 */
export function abdCanonicalForm(text: string): string | undefined {
  if (text.startsWith('abd')) {
    let rest = text.slice(3);
    const article = /^[aeiou]{1,2}l/.exec(rest) ?? /^[aeiou]([^aeiouwy])(?=\1)/.exec(rest);
    if (article) rest = rest.slice(article[0].length);
    return rest.length >= 3 ? `abd${rest}` : undefined;
  }
  if (text.startsWith('bd') && vowelless(text)) {
    let rest = text.slice(2);
    if (rest.startsWith('l') && rest.length > 2) rest = rest.slice(1);
    return rest.length >= 2 ? `bd${rest}` : undefined;
  }
  return undefined;
}

/** The skeleton key of a word: `v:` for a vowelless word, `w:` for a written-out one ("" when none). */
function skeletonKey(token: Pick<Token, 'skeleton' | 'consonants'>): string {
  const key = token.skeleton !== undefined ? `v:${token.skeleton}` : `w:${token.consonants}`;
  return key.length > 2 ? key : '';
}

/**
 * Analyses a word: phonetic codes, blocking keys (see {@link Token.keys}) and, for an "Abd ..." name,
 * its canonical form, whose exact and skeleton keys are keys of the word too.
 */
export function makeToken(text: string): Token {
  const token = analyse(text);
  const canonicalText = token.initial ? undefined : abdCanonicalForm(text);
  if (canonicalText === undefined) return token;
  const canonical = analyse(canonicalText);
  const extra = [`e:${canonicalText}`, skeletonKey(canonical)].filter((k) => k && !token.keys.includes(k));
  return shaped(token, [...token.keys, ...extra], canonical);
}

/**
 * Two adjacent words of a name written as one ("abd" + "allah" = "abdallah"), on either side: a query
 * writing "Abdullah" must find the list's "Abd Allah", and "Abd Allah" the list's "Abdullah". There is
 * one per pair of adjacent words of every list name, so it is analysed lightly: only its exact, skeleton
 * and canonical keys (one-deletion and phonetic keys would double the index), and no phonetic code (its
 * similarity is Jaro-Winkler, skeleton or canonical form, never "sounds alike"). A compound is thus linked
 * to a word with the same letters, the same consonants (a vowelless compound and a written-out word) or
 * the same "Abd" canonical form.
 */
export function makeCompoundToken(text: string): Token {
  const skeleton = vowelless(text) ? consonantSkeleton(text) : undefined;
  const consonants = skeleton ?? consonantSkeleton(text);
  const base = { text, phonetic: [], initial: false, skeleton, consonants, letters: letterMask(text) };
  // A written-out compound has no skeleton key of its own: consonants collapsed across the two words
  // ("ahmed" + "adnan" -> "hmdn") would let vowelless words meet pairs of unrelated names. It still meets
  // them through its canonical form ("abd" + "allah" ~ `bdllh`), and a vowelless compound (two words of
  // a name in Arabic script) keeps its skeleton, which is the word itself.
  const keys = [`e:${text}`, skeleton === undefined ? '' : skeletonKey(base)];
  const canonicalText = abdCanonicalForm(text);
  const canonical = canonicalText === undefined ? undefined : analyse(canonicalText);
  if (canonical) keys.push(`e:${canonical.text}`, skeletonKey(canonical));
  return shaped(base, [...new Set(keys.filter(Boolean))], canonical);
}

/**
 * Every token is created here, with the same properties in the same order (absent ones undefined), so
 * the matcher's hot loops see one object shape: mixed shapes made them several times slower.
 */
function shaped(
  t: Omit<Token, 'keys' | 'canonical' | 'repeats'>,
  keys: string[],
  canonical: Token | undefined,
): Token {
  return {
    text: t.text,
    phonetic: t.phonetic,
    keys,
    initial: t.initial,
    skeleton: t.skeleton,
    consonants: t.consonants,
    letters: t.letters,
    repeats: t.text.length - popcount(t.letters),
    canonical,
  };
}

function analyse(text: string): Token {
  if (text.length === 1) {
    const initial = { text, phonetic: [], initial: true, consonants: text, letters: letterMask(text) };
    return shaped(initial, [], undefined);
  }
  const keys = new Set<string>([`e:${text}`]);
  if (text.length >= MIN_DELETION_LENGTH) {
    for (let i = 0; i < text.length; i += 1) keys.add(`e:${text.slice(0, i)}${text.slice(i + 1)}`);
  }
  const phonetic: string[] = [];
  const skeleton = vowelless(text) ? consonantSkeleton(text) : undefined;
  if (/[a-z]/.test(text)) {
    // A vowelless word sounds like its consonants with vowels between them ("mhmd" ~ "mahamad").
    const spoken = skeleton !== undefined ? (text.match(DIGRAPHS) ?? []).join('a') : text;
    const [primary, alternate] = doubleMetaphone(spoken);
    for (const code of [primary, alternate]) {
      // One-letter codes ("A", "N") are too common to say two words sound alike.
      if (code && code.length >= 2 && !phonetic.includes(code)) {
        phonetic.push(code);
        keys.add(`p:${code}`);
      }
    }
  }
  // The consonant skeleton is a blocking key too, so the index finds what sameSkeleton links: `v:` for a
  // vowelless word, `w:` for a written-out one. A query word looks up the other kind only (searchKey), so
  // written-out words never meet by skeleton and the usual (Latin) query costs no more than before.
  const consonants = skeleton ?? consonantSkeleton(text);
  const key = skeletonKey({ skeleton, consonants });
  if (key) keys.add(key);
  const bare = skeleton === undefined ? undefined : withoutArticle(skeleton);
  if (bare !== undefined) keys.add(`v:${bare}`);
  return shaped(
    { text, phonetic, initial: false, skeleton, consonants, letters: letterMask(text) },
    [...keys],
    undefined,
  );
}

/** The index key a query word's blocking key looks up: skeleton keys meet the other kind of word. */
export function searchKey(key: string): string {
  if (key.startsWith('w:')) return `v:${key.slice(2)}`;
  if (key.startsWith('v:')) return `w:${key.slice(2)}`;
  return key;
}

/** A vowelless word and a written-out one with the same consonant skeleton ("hsn" ~ "hassan"). */
function sameSkeleton(a: Token, b: Token): boolean {
  if ((a.skeleton === undefined) === (b.skeleton === undefined)) return false;
  const [bare, full] = a.skeleton !== undefined ? [a, b] : [b, a];
  const s = bare.skeleton!;
  if (s.length === 0) return false;
  if (s === full.consonants) return true;
  // The article written on the word (`lfdl` ~ fadali): one more consonant, an l in front.
  return (
    s.length >= 4 &&
    s.length === full.consonants.length + 1 &&
    s.charCodeAt(0) === 108 &&
    s.endsWith(full.consonants)
  );
}

/** Similarity of a vowelless word and a written-out word with the same consonant skeleton. */
export const SKELETON_SIMILARITY = 0.95;

/**
 * Whether two tokens share a blocking key: exactly the relation the index uses to find candidates
 * (a key of one, looked up with {@link searchKey}, is a key of the other). That covers equal words,
 * one deletion apart, the same phonetic code, and a vowelless word with a written-out word of the
 * same consonant skeleton; two written-out words never meet by skeleton (w: looks up v: only).
 */
export function linked(a: Token, b: Token): boolean {
  if (a.initial || b.initial) return false;
  const lookups = searchKeysOf(a);
  for (const k of b.keys) if (lookups.has(k)) return true;
  return false;
}

/** {@link linked} by the exact key of `a` only (its first: the word's own text), as a reading links. */
export function linkedExactly(a: Token, b: Token): boolean {
  if (a.initial || b.initial) return false;
  const key = a.keys[0];
  return key !== undefined && b.keys.includes(searchKey(key));
}

/** The keys a token looks up ({@link searchKey} of each of its keys), kept per token for {@link linked}. */
const searchKeySets = new WeakMap<Token, Set<string>>();

function searchKeysOf(token: Token): Set<string> {
  let set = searchKeySets.get(token);
  if (set === undefined) {
    set = new Set(token.keys.map(searchKey));
    searchKeySets.set(token, set);
  }
  return set;
}

/** Whether the tokens share a Double Metaphone code (at most two each: plain loops, no closures). */
function soundAlike(a: Token, b: Token): boolean {
  for (const p of a.phonetic) for (const q of b.phonetic) if (p === q) return true;
  return false;
}

/** Similarity of two "Abd ..." names whose canonical forms agree: a spelling variant, not the same spelling. */
export const CANONICAL_SIMILARITY = 0.95;

/**
 * Similarity of two tokens in 0..1: Jaro-Winkler, raised towards 1 when the tokens sound alike,
 * {@link INITIAL_SIMILARITY} for an initial that fits. Two "Abd ..." names also compare by their
 * canonical forms, up to {@link CANONICAL_SIMILARITY} ("abdulrahman" ~ "abdurrahman").
 */
export function tokenSimilarity(a: Token, b: Token): number {
  if (a.text === b.text) return 1;
  if (a.initial || b.initial) return a.text[0] === b.text[0] ? INITIAL_SIMILARITY : 0;
  const direct = wordSimilarity(a, b);
  if (a.canonical === undefined || b.canonical === undefined) return direct;
  const canonical = a.canonical.text === b.canonical.text ? 1 : wordSimilarity(a.canonical, b.canonical);
  return Math.max(direct, Math.min(CANONICAL_SIMILARITY, canonical));
}

function wordSimilarity(a: Token, b: Token): number {
  const jw = jaroWinkler(a.text, b.text);
  if (sameSkeleton(a, b)) return Math.max(jw, SKELETON_SIMILARITY);
  return soundAlike(a, b) ? Math.max(jw, 0.5 + jw / 2) : jw;
}

/**
 * Upper bound of `jaroWinkler(a.text, b.text)` in O(1). Jaro's matches m are at most the letters the
 * words share plus the fewer repeated letters of either (a letter can match once per occurrence), and
 * the score grows with m and falls with transpositions (taken as none); the Winkler boost is applied
 * with the real common prefix, and only where the bounded Jaro reaches the boost threshold: talisman's
 * defaults (threshold 0.7, scale 0.1, prefix of up to 4 letters), which `jaroWinkler` uses.
 */
function jaroWinklerBound(a: Token, b: Token): number {
  const la = a.text.length;
  const lb = b.text.length;
  const common = popcount(a.letters & b.letters);
  // Ternaries, not Math.min (see weight() in name-score-weights.ts): this bound runs for most word pairs.
  const shorter = la < lb ? la : lb;
  const shared = common + (a.repeats < b.repeats ? a.repeats : b.repeats);
  const m = shorter < shared ? shorter : shared;
  if (m === 0) return 0;
  const j = (m / la + m / lb + 1) / 3;
  if (j < 0.7) return j;
  const limit = shorter < 4 ? shorter : 4;
  let prefix = 0;
  while (prefix < limit && a.text.charCodeAt(prefix) === b.text.charCodeAt(prefix)) prefix += 1;
  return j + prefix * 0.1 * (1 - j);
}

/** Margin for rounding when a bound is compared with a threshold: the bound only skips clear cases. */
const BOUND_EPSILON = 1e-9;

/**
 * {@link tokenSimilarity} when it is at least `min`, else 0 (or the exact value: never more).
 * Name alignment ignores pairs of full words below its minimum, and most word pairs of a screening are
 * far apart, so they are ruled out by {@link jaroWinklerBound} without computing Jaro-Winkler. Two words
 * sounding alike reach `min` from a lower Jaro-Winkler (0.5 + jw / 2), which the bound accounts for.
 */
export function similarityIfAtLeast(a: Token, b: Token, min: number): number {
  if (a.text === b.text || a.initial || b.initial || sameSkeleton(a, b)) return tokenSimilarity(a, b);
  if (a.canonical !== undefined && b.canonical !== undefined) return tokenSimilarity(a, b);
  const needed = soundAlike(a, b) ? Math.min(min, 2 * min - 1) : min;
  if (jaroWinklerBound(a, b) < needed - BOUND_EPSILON) return 0;
  return tokenSimilarity(a, b);
}

/**
 * {@link similarityIfAtLeast} for two words known not to be linked (they share no blocking key), as the
 * blocking of a screening tells. Such words are neither equal nor alike in sound or skeleton (each of
 * those is a shared key), so unless an initial or two "Abd" names are involved their similarity is plain
 * Jaro-Winkler: the bound alone decides most pairs.
 */
export function unlinkedSimilarityIfAtLeast(a: Token, b: Token, min: number): number {
  if (a.initial || b.initial || (a.canonical !== undefined && b.canonical !== undefined))
    return tokenSimilarity(a, b);
  if (jaroWinklerBound(a, b) < min - BOUND_EPSILON) return 0;
  return jaroWinkler(a.text, b.text);
}

/** Bounded memo of tokens, so repeated query words are analysed once. */
export class TokenCache {
  private readonly map = new Map<string, Token>();
  constructor(
    private readonly maxSize = 100_000,
    private readonly make: (text: string) => Token = makeToken,
  ) {}
  get(text: string): Token {
    let token = this.map.get(text);
    if (token === undefined) {
      if (this.map.size >= this.maxSize) this.map.clear();
      token = this.make(text);
      this.map.set(text, token);
    }
    return token;
  }
}
