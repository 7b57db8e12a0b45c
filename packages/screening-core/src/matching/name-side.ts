import type { Token } from './token';

/**
 * A name's words and its compounds: `compounds[k]` is words k and k+1 written as one word ("abd" +
 * "allah" = "abdallah"), undefined where either is an initial or together they are too long. A name is
 * often written as one word on one side and two on the other (Abdullah / Abd Allah / عبد الله, Jianhua /
 * Jian Hua), so a compound may pair with a single word of the other name; two compounds are never paired
 * (their words pair one by one).
 */
export interface NameSide {
  tokens: readonly Token[];
  compounds: readonly (Token | undefined)[];
  /**
   * Words the name's parse removed (titles, particles, legal forms: parseName in normalize.ts) and words
   * it repeats, if any (DROPPED_WORD_PENALTY in name-score-weights.ts).
   */
  dropped?: readonly string[];
}

/**
 * Longest compound: names written as one word are short (Abdulrahman, Mohammadreza, Jianhua), and the
 * index holds one compound per pair of adjacent words of every list name, most of them no one's name.
 */
const MAX_COMPOUND_LENGTH = 14;

/** A name's words with their compounds, each made by `make` (makeCompoundToken, maybe cached) from the joined text. */
export function withCompounds(tokens: readonly Token[], make: (text: string) => Token): NameSide {
  const compounds: (Token | undefined)[] = [];
  for (let k = 0; k + 1 < tokens.length; k += 1) {
    const a = tokens[k]!;
    const b = tokens[k + 1]!;
    const fits = !a.initial && !b.initial && a.text.length + b.text.length <= MAX_COMPOUND_LENGTH;
    compounds.push(fits ? make(a.text + b.text) : undefined);
  }
  return { tokens, compounds };
}
