import { alignmentScore } from './alignment-score';
import type { NameSide } from './name-side';
import { MIN_TOKEN_SIMILARITY, weight } from './name-score-weights';
import { linked, type Token } from './token';

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
 * its words), and scores the alignment ({@link alignmentScore}): the weighted mean similarity of the
 * chosen pairs, with unmatched words of either side added to the denominator at a reduced weight. 0 when
 * no pair of full words is chosen (initials alone are no name match). `nc` is the candidate's word count
 * (`candidate` may be a longer scratch array). Appends the chosen options to `picks` when given.
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
  return alignmentScore(num, den, query, usedQ, candidate, usedC, nc, dropped);
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
