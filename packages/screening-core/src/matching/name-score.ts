import {
  consonantSkeleton,
  linked,
  linkedExactly,
  makeCompoundToken,
  tokenSimilarity,
  type Token,
} from './token';
import { oneEditApart } from './normalize';

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

export interface TokenPair {
  query: string;
  candidate: string;
  similarity: number;
}

export interface NameComparison {
  score: number;
  pairs: TokenPair[];
  unmatchedQuery: string[];
  unmatchedCandidate: string[];
}

export function weight(t: Token): number {
  // Ternaries, not Math.min: this runs per word pair, and a Math call is not inlined inside a vm
  // context (jest runs tests in one), which made the test over every list name several times slower.
  const n = t.text.length;
  return t.initial ? 1 : n < 10 ? n : 10;
}

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
   * it repeats, if any ({@link DROPPED_WORD_PENALTY}).
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

/**
 * How many words must be linked before two names are compared at all: two, or every word of the
 * shorter name. A single shared "Mohammed" is not a name match.
 */
export function requiredLinks(query: readonly Token[], candidate: readonly Token[]): number {
  return requiredFor(words(query), words(candidate));
}

/** {@link requiredLinks} from the counts of words that are not initials. */
export function requiredFor(queryWords: number, candidateWords: number): number {
  const fewer = queryWords < candidateWords ? queryWords : candidateWords;
  return fewer >= 2 ? 2 : 1;
}

function words(tokens: readonly Token[]): number {
  let n = 0;
  for (const t of tokens) if (!t.initial) n += 1;
  return n;
}

/**
 * Distinct query words linked to the candidate: a query word linked to a candidate word or compound,
 * or the first of two query words whose compound is linked to a candidate word (the pair counts once:
 * "Jian Hua" is not two links to "Jianhua Li").
 */
export function countLinks(query: NameSide, candidate: NameSide, exactOnly = false): number {
  const links = exactOnly ? linkedExactly : linked;
  const seen = new Set<string>();
  query.tokens.forEach((q, i) => {
    if (seen.has(q.text)) return;
    const qc = query.compounds[i];
    if (
      candidate.tokens.some((c) => links(q, c)) ||
      candidate.compounds.some((cc) => cc !== undefined && links(q, cc)) ||
      (qc !== undefined && candidate.tokens.some((c) => links(qc, c)))
    )
      seen.add(q.text);
  });
  return seen.size;
}

/** Grows a scratch array to hold at least `n` items (contents are not kept). */
function grow<T extends Float64Array | Int32Array | Uint8Array>(a: T, n: number, make: (n: number) => T): T {
  return a.length >= n ? a : make(Math.max(n, a.length * 2));
}

/**
 * Whether a word pair of similarity `s` may be aligned: full words from MIN_TOKEN_SIMILARITY up, an
 * initial with a word it fits (INITIAL_SIMILARITY).
 */
export function alignable(s: number, q: Token, c: Token): boolean {
  return s >= MIN_TOKEN_SIMILARITY || (s > 0 && (q.initial || c.initial));
}

/*
 * The alignment works on "options" (pairs that may be aligned), kept in scratch arrays reused across
 * calls: the matcher is synchronous and nothing called while options are collected or chosen re-enters
 * it, so one set of buffers serves every comparison without allocating. A caller opens a set with
 * beginOptions, adds pairs with addOption (in any order) and scores them with chooseOptions.
 */
let optS = new Float64Array(64);
let optW = new Float64Array(64);
let optCW = new Float64Array(64);
let optI = new Int32Array(64);
let optJ = new Int32Array(64);
/** 0: word-word, 1: query compound (words i, i+1) - candidate word j, 2: query word i - candidate compound (j, j+1). */
let optKind = new Uint8Array(64);
let optCount = 0;
let usedQ = new Uint8Array(16);
let usedC = new Uint8Array(16);

export const OPTION_WORDS = 0;
export const OPTION_QUERY_COMPOUND = 1;
export const OPTION_CANDIDATE_COMPOUND = 2;

/** Starts a set of options for a query of `nq` words and a candidate of `nc`. */
export function beginOptions(nq: number, nc: number): void {
  const cap = 3 * nq * nc;
  if (optS.length < cap) {
    optS = grow(optS, cap, (n) => new Float64Array(n));
    optW = grow(optW, cap, (n) => new Float64Array(n));
    optCW = grow(optCW, cap, (n) => new Float64Array(n));
    optI = grow(optI, cap, (n) => new Int32Array(n));
    optJ = grow(optJ, cap, (n) => new Int32Array(n));
    optKind = grow(optKind, cap, (n) => new Uint8Array(n));
  }
  usedQ = grow(usedQ, nq, (n) => new Uint8Array(n));
  usedC = grow(usedC, nc, (n) => new Uint8Array(n));
  optCount = 0;
}

/**
 * Adds a pair that may be aligned: similarity `s` of query position `i` and candidate position `j`,
 * of `kind` (a compound covers positions i, i+1 or j, j+1), `q` and `c` being the words or compounds.
 */
export function addOption(kind: number, s: number, i: number, j: number, q: Token, c: Token): void {
  const k = optCount;
  optS[k] = s;
  // An initial weighs 1 in a pair; otherwise a pair weighs the mean length of its two sides (capped).
  optW[k] = q.initial || c.initial ? 1 : (weight(q) + weight(c)) / 2;
  optCW[k] = weight(c);
  optI[k] = i;
  optJ[k] = j;
  optKind[k] = kind;
  optCount = k + 1;
}

/** Whether option a goes before option b: more similar, then word pairs before compounds, heavier candidate, earlier positions. */
function before(a: number, b: number): boolean {
  if (optS[a] !== optS[b]) return optS[a]! > optS[b]!;
  if (optKind[a] !== optKind[b]) return optKind[a]! < optKind[b]!;
  if (optCW[a] !== optCW[b]) return optCW[a]! > optCW[b]!;
  if (optI[a] !== optI[b]) return optI[a]! < optI[b]!;
  return optJ[a]! < optJ[b]!;
}

/** Score of one greedy alignment step's pick, reported to {@link chooseOptions}' caller. */
export interface AlignedPair {
  kind: number;
  i: number;
  j: number;
  s: number;
}

/**
 * Chooses among the options greedily, best first ({@link before}), one to one (a compound uses both of
 * its words), and scores the alignment: the weighted mean similarity of the chosen pairs, with unmatched
 * words of either side added to the denominator at a reduced weight. 0 when no pair of full words is
 * chosen (initials alone are no name match). `nc` is the candidate's word count (`candidate` may be a
 * longer scratch array). Appends the chosen options to `picks` when given.
 *
 * For word pairs alone this is the original "stable sort of every pair by similarity, then heavier
 * candidate word, then one pass" in another form: the pass takes, each time, the first remaining pair
 * whose words are free, which is the pair `before` all others among those. The sums are formed in the
 * same order, so the scores are bit for bit the same.
 */
export function chooseOptions(
  query: readonly Token[],
  candidate: readonly Token[],
  nc = candidate.length,
  picks?: AlignedPair[],
  dropped?: readonly string[],
): number {
  const nq = query.length;
  // Most names a common-word query reaches have no pair to align.
  if (optCount === 0) return 0;
  usedQ.fill(0, 0, nq);
  usedC.fill(0, 0, nc);
  let num = 0;
  let den = 0;
  let fullPair = false;
  for (;;) {
    let best = -1;
    for (let k = 0; k < optCount; k += 1) {
      const i = optI[k]!;
      const j = optJ[k]!;
      const kind = optKind[k]!;
      if (usedQ[i] || usedC[j]) continue;
      if (kind === OPTION_QUERY_COMPOUND && usedQ[i + 1]) continue;
      if (kind === OPTION_CANDIDATE_COMPOUND && usedC[j + 1]) continue;
      if (best < 0 || before(k, best)) best = k;
    }
    if (best < 0) break;
    const i = optI[best]!;
    const j = optJ[best]!;
    const kind = optKind[best]!;
    usedQ[i] = 1;
    usedC[j] = 1;
    if (kind === OPTION_QUERY_COMPOUND) usedQ[i + 1] = 1;
    if (kind === OPTION_CANDIDATE_COMPOUND) usedC[j + 1] = 1;
    num += optS[best]! * optW[best]!;
    den += optW[best]!;
    if (kind !== OPTION_WORDS || (!query[i]!.initial && !candidate[j]!.initial)) fullPair = true;
    picks?.push({ kind, i, j, s: optS[best]! });
  }
  if (!fullPair) return 0;
  // Covered: pairs close to exact on average (a typo, not another name: "Mendoza" ~ "Mendez" is not).
  let covered = den >= COVERED_MIN_WEIGHT && num >= COVERED_MIN_SIMILARITY * den;
  let fullWords = 0;
  for (let i = 0; i < nq; i += 1) {
    if (!usedQ[i]) {
      covered = false;
      const q = query[i]!;
      den +=
        (dropped !== undefined && standsFor(q, dropped) ? DROPPED_WORD_PENALTY : UNMATCHED_QUERY_PENALTY) *
        weight(q);
    } else if (!query[i]!.initial) fullWords += 1;
  }
  const share = covered && fullWords >= 2 ? UNMATCHED_CANDIDATE_PENALTY_COVERED : UNMATCHED_CANDIDATE_PENALTY;
  for (let j = 0; j < nc; j += 1) if (!usedC[j]) den += share * weight(candidate[j]!);
  return den === 0 ? 0 : num / den;
}

/**
 * Whether a query word is one of `dropped` within one typo (words of four letters or more), or has its
 * consonants (a vowelless word).
 */
export function standsFor(q: Token, dropped: readonly string[]): boolean {
  if (q.initial) return false;
  // A vowelless (Arabic-script) word stands for a removed word with its consonants: شيخ (`shykh`) for
  // the title "Shaikh", قاري (`qry`) for "Qari".
  if (q.skeleton !== undefined && q.skeleton.length >= 2) {
    for (const d of dropped) if (consonantSkeleton(d) === q.skeleton) return true;
  }
  if (q.text.length < 4) return false;
  for (const d of dropped) if (oneEditApart(q.text, d)) return true;
  return false;
}

/**
 * Collects every option of two names with `similarity` and chooses among them ({@link chooseOptions}).
 * Word pairs are options from their similarity alone; a compound and a word must also be linked (share a
 * blocking key: the same letters, consonants or "Abd" canonical form), so that compounds join names
 * written apart and add no loose pairs ("putinvladimir" is no one's name).
 */
export function alignNames(
  query: NameSide,
  candidate: NameSide,
  similarity: (a: Token, b: Token) => number,
  picks?: AlignedPair[],
): number {
  const qt = query.tokens;
  const ct = candidate.tokens;
  if (qt.length === 0 || ct.length === 0) return 0;
  beginOptions(qt.length, ct.length);
  for (let i = 0; i < qt.length; i += 1) {
    for (let j = 0; j < ct.length; j += 1) {
      const s = similarity(qt[i]!, ct[j]!);
      if (alignable(s, qt[i]!, ct[j]!)) addOption(OPTION_WORDS, s, i, j, qt[i]!, ct[j]!);
    }
  }
  query.compounds.forEach((qc, i) => {
    if (qc === undefined) return;
    ct.forEach((c, j) => {
      if (c.initial) return;
      if (!linked(qc, c)) return;
      const s = similarity(qc, c);
      if (s >= MIN_TOKEN_SIMILARITY) addOption(OPTION_QUERY_COMPOUND, s, i, j, qc, c);
    });
  });
  candidate.compounds.forEach((cc, j) => {
    if (cc === undefined) return;
    qt.forEach((q, i) => {
      if (q.initial) return;
      if (!linked(q, cc)) return;
      const s = similarity(q, cc);
      if (s >= MIN_TOKEN_SIMILARITY) addOption(OPTION_CANDIDATE_COMPOUND, s, i, j, q, cc);
    });
  });
  return chooseOptions(qt, ct, ct.length, picks, candidate.dropped);
}

function noMatch(query: readonly Token[], candidate: readonly Token[]): NameComparison {
  return {
    score: 0,
    pairs: [],
    unmatchedQuery: query.map((t) => t.text),
    unmatchedCandidate: candidate.map((t) => t.text),
  };
}

/** The score of {@link alignNames} with its explanation (a compound is shown as its two words). */
export function explainNames(
  query: NameSide,
  candidate: NameSide,
  similarity: (a: Token, b: Token) => number,
): NameComparison {
  const picks: AlignedPair[] = [];
  const score = alignNames(query, candidate, similarity, picks);
  if (score === 0) return noMatch(query.tokens, candidate.tokens);
  const usedQuery = new Set<number>();
  const usedCandidate = new Set<number>();
  const text = (side: NameSide, k: number, compound: boolean): string =>
    compound ? `${side.tokens[k]!.text} ${side.tokens[k + 1]!.text}` : side.tokens[k]!.text;
  const pairs = picks.map(({ kind, i, j, s }) => {
    usedQuery.add(i);
    usedCandidate.add(j);
    if (kind === OPTION_QUERY_COMPOUND) usedQuery.add(i + 1);
    if (kind === OPTION_CANDIDATE_COMPOUND) usedCandidate.add(j + 1);
    return {
      query: text(query, i, kind === OPTION_QUERY_COMPOUND),
      candidate: text(candidate, j, kind === OPTION_CANDIDATE_COMPOUND),
      similarity: Math.round(s * 1000) / 1000,
    };
  });
  return {
    score,
    pairs,
    unmatchedQuery: query.tokens.filter((_, i) => !usedQuery.has(i)).map((t) => t.text),
    unmatchedCandidate: candidate.tokens.filter((_, j) => !usedCandidate.has(j)).map((t) => t.text),
  };
}

/**
 * Order-independent comparison: every word pair (and compound of two adjacent words with a word of the
 * other name) is scored, the best pairs are taken greedily one to one, and the score is the
 * length-weighted mean similarity of the pairs, with unmatched words of either side added to the
 * denominator at a reduced weight. Zero when too few words are linked.
 */
export function compareNames(
  query: readonly Token[],
  candidate: readonly Token[],
  similarity: (a: Token, b: Token) => number = tokenSimilarity,
): NameComparison {
  return compareSides(
    withCompounds(query, makeCompoundToken),
    withCompounds(candidate, makeCompoundToken),
    similarity,
  );
}

/** {@link compareNames} of prepared sides (the index keeps each list name's compounds). */
export function compareSides(
  query: NameSide,
  candidate: NameSide,
  similarity: (a: Token, b: Token) => number = tokenSimilarity,
): NameComparison {
  if (query.tokens.length === 0 || candidate.tokens.length === 0)
    return noMatch(query.tokens, candidate.tokens);
  if (countLinks(query, candidate) < requiredLinks(query.tokens, candidate.tokens))
    return noMatch(query.tokens, candidate.tokens);
  return explainNames(query, candidate, similarity);
}
