import doubleMetaphone from 'talisman/phonetics/double-metaphone';
import jaroWinkler from 'talisman/metrics/jaro-winkler';

/** A name token with what matching and blocking need, computed once per distinct token. */
export interface Token {
  text: string;
  /** Double Metaphone primary and alternate codes (distinct, non-empty). */
  phonetic: string[];
  /**
   * Blocking keys: the token, its one-deletion variants (tokens of 4+ letters) and its phonetic codes.
   * Two tokens are "linked" when they share a key: equal, one edit apart, or sounding alike.
   */
  keys: string[];
  initial: boolean;
  /**
   * Set for a word without vowels (from a script that writes none, such as Arabic: "mhmd"): its
   * consonant skeleton, compared with the skeleton of the other word ("mohamed" -> "mhmd").
   */
  skeleton?: string;
}

/** Consonant skeleton: vowels (and the semivowels w, y) removed, doubled letters collapsed. */
export function consonantSkeleton(text: string): string {
  return text.replace(/[aeiouyw]/g, '').replace(/(.)\1+/g, '$1');
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

export function makeToken(text: string): Token {
  if (text.length === 1) return { text, phonetic: [], keys: [], initial: true };
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
  const skeletonKey = skeleton !== undefined ? `v:${skeleton}` : `w:${consonantSkeleton(text)}`;
  if (skeletonKey.length > 2) keys.add(skeletonKey);
  return { text, phonetic, keys: [...keys], initial: false, ...(skeleton ? { skeleton } : {}) };
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
  return bare.skeleton!.length > 0 && bare.skeleton === consonantSkeleton(full.text);
}

/** Similarity of a vowelless word and a written-out word with the same consonant skeleton. */
export const SKELETON_SIMILARITY = 0.95;

/** Whether two tokens share a blocking key (the same relation the index uses to find candidates). */
export function linked(a: Token, b: Token): boolean {
  if (a.initial || b.initial) return false;
  if (a.text === b.text) return true;
  if (sameSkeleton(a, b)) return true;
  const [small, large] = a.keys.length <= b.keys.length ? [a, b] : [b, a];
  // Skeleton keys (w:, v:) link only through sameSkeleton: a vowelless word with a written-out one.
  for (const k of small.keys) {
    if (k.startsWith('w:') || k.startsWith('v:')) continue;
    if (large.keys.includes(k)) return true;
  }
  return false;
}

/**
 * Similarity of two tokens in 0..1: Jaro-Winkler, raised towards 1 when the tokens sound alike,
 * {@link INITIAL_SIMILARITY} for an initial that fits.
 */
export function tokenSimilarity(a: Token, b: Token): number {
  if (a.text === b.text) return 1;
  if (a.initial || b.initial) return a.text[0] === b.text[0] ? INITIAL_SIMILARITY : 0;
  const jw = jaroWinkler(a.text, b.text);
  if (sameSkeleton(a, b)) return Math.max(jw, SKELETON_SIMILARITY);
  const soundAlike = a.phonetic.some((p) => b.phonetic.includes(p));
  return soundAlike ? Math.max(jw, 0.5 + jw / 2) : jw;
}

/** Bounded memo of tokens, so repeated query words are analysed once. */
export class TokenCache {
  private readonly map = new Map<string, Token>();
  constructor(private readonly maxSize = 100_000) {}
  get(text: string): Token {
    let token = this.map.get(text);
    if (token === undefined) {
      if (this.map.size >= this.maxSize) this.map.clear();
      token = makeToken(text);
      this.map.set(text, token);
    }
    return token;
  }
}
