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
  if (/[a-z]/.test(text)) {
    const [primary, alternate] = doubleMetaphone(text);
    for (const code of [primary, alternate]) {
      // One-letter codes ("A", "N") are too common to say two words sound alike.
      if (code && code.length >= 2 && !phonetic.includes(code)) {
        phonetic.push(code);
        keys.add(`p:${code}`);
      }
    }
  }
  return { text, phonetic, keys: [...keys], initial: false };
}

/** Whether two tokens share a blocking key (the same relation the index uses to find candidates). */
export function linked(a: Token, b: Token): boolean {
  if (a.initial || b.initial) return false;
  if (a.text === b.text) return true;
  const [small, large] = a.keys.length <= b.keys.length ? [a, b] : [b, a];
  for (const k of small.keys) if (large.keys.includes(k)) return true;
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
