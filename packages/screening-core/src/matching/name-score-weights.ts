import type { Token } from './token';

/** Token pairs below this similarity are treated as different words. */
export const MIN_TOKEN_SIMILARITY = 0.8;
/** Share of an unmatched query word's weight that counts against the score (customer has a name the entry lacks). */
export const UNMATCHED_QUERY_PENALTY = 0.5;
/** Same for an unmatched entry word: lists often carry patronymics and middle names a customer omits. */
export const UNMATCHED_CANDIDATE_PENALTY = 0.3;
/**
 * The entry-word share when the query is fully covered: every query word paired, two or more of them full
 * words, weighing {@link COVERED_MIN_WEIGHT} or more. A customer record commonly omits middle names and
 * patronymics ("Aleksei Morenets" for "MORENETS, Aleksei Sergeyevich": 0.83 with 0.3, 0.94 with 0.1); the
 * weight floor keeps two short syllables ("Li Wei") from meeting every longer name containing them.
 */
export const UNMATCHED_CANDIDATE_PENALTY_COVERED = 0.1;
export const COVERED_MIN_WEIGHT = 9;
export const COVERED_MIN_SIMILARITY = 0.95;
/**
 * Share of an unmatched query word's weight when the word is, within one typo, a title, particle or legal
 * form the list name had removed (`AMIGR RAHIMI` for `AMIR RAHIMI`, whose "Amir" is removed as a title;
 * `TTHE RAHMANI GROUP`), or a word the list name repeats and is compared once (`VALLLE VALLE` for
 * `VALLE VALLE`): the word stands for something the list name has, only not as a comparable word.
 */
export const DROPPED_WORD_PENALTY = 0.1;

/** A word's weight in the name score: its length up to 10, an initial 1. */
export function weight(t: Token): number {
  // Ternaries, not Math.min: this runs per word pair, and a Math call is not inlined inside a vm
  // context (jest runs tests in one), which made the test over every list name several times slower.
  const n = t.text.length;
  return t.initial ? 1 : n < 10 ? n : 10;
}
