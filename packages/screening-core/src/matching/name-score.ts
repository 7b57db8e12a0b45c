import { linked, tokenSimilarity, type Token } from './token';

/** Token pairs below this similarity are treated as different words. */
export const MIN_TOKEN_SIMILARITY = 0.8;
/** Share of an unmatched query word's weight that counts against the score (customer has a name the entry lacks). */
export const UNMATCHED_QUERY_PENALTY = 0.5;
/** Same for an unmatched entry word: lists often carry patronymics and middle names a customer omits. */
export const UNMATCHED_CANDIDATE_PENALTY = 0.3;

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

function weight(t: Token): number {
  return t.initial ? 1 : Math.min(t.text.length, 10);
}

/**
 * How many words must be linked before two names are compared at all: two, or every word of the
 * shorter name. A single shared "Mohammed" is not a name match.
 */
export function requiredLinks(query: readonly Token[], candidate: readonly Token[]): number {
  const q = query.filter((t) => !t.initial).length;
  const c = candidate.filter((t) => !t.initial).length;
  return Math.max(1, Math.min(2, q, c));
}

/** Distinct query words linked to some candidate word. */
export function countLinks(query: readonly Token[], candidate: readonly Token[]): number {
  const seen = new Set<string>();
  for (const q of query) {
    if (seen.has(q.text)) continue;
    if (candidate.some((c) => linked(q, c))) seen.add(q.text);
  }
  return seen.size;
}

/**
 * Order-independent comparison: every word pair is scored, the best pairs are taken greedily one
 * to one, and the score is the length-weighted mean similarity of the pairs, with unmatched words
 * of either side added to the denominator at a reduced weight. Zero when too few words are linked.
 */
export function compareNames(
  query: readonly Token[],
  candidate: readonly Token[],
  similarity: (a: Token, b: Token) => number = tokenSimilarity,
): NameComparison {
  const none: NameComparison = {
    score: 0,
    pairs: [],
    unmatchedQuery: query.map((t) => t.text),
    unmatchedCandidate: candidate.map((t) => t.text),
  };
  if (query.length === 0 || candidate.length === 0) return none;
  if (countLinks(query, candidate) < requiredLinks(query, candidate)) return none;
  const options: Array<[number, number, number]> = [];
  for (let i = 0; i < query.length; i += 1) {
    for (let j = 0; j < candidate.length; j += 1) {
      const s = similarity(query[i]!, candidate[j]!);
      if (s >= MIN_TOKEN_SIMILARITY || (s > 0 && (query[i]!.initial || candidate[j]!.initial)))
        options.push([s, i, j]);
    }
  }
  // Prefer the most similar pairs; among equals, full words before initials.
  options.sort((a, b) => b[0] - a[0] || weight(candidate[b[2]]!) - weight(candidate[a[2]]!));
  const usedQ = new Array<boolean>(query.length).fill(false);
  const usedC = new Array<boolean>(candidate.length).fill(false);
  const pairs: TokenPair[] = [];
  let num = 0;
  let den = 0;
  for (const [s, i, j] of options) {
    if (usedQ[i] || usedC[j]) continue;
    usedQ[i] = true;
    usedC[j] = true;
    const q = query[i]!;
    const c = candidate[j]!;
    const w = q.initial || c.initial ? 1 : (weight(q) + weight(c)) / 2;
    num += s * w;
    den += w;
    pairs.push({ query: q.text, candidate: c.text, similarity: Math.round(s * 1000) / 1000 });
  }
  if (pairs.every((p) => p.query.length === 1 || p.candidate.length === 1)) return none;
  const unmatchedQuery: string[] = [];
  const unmatchedCandidate: string[] = [];
  query.forEach((t, i) => {
    if (!usedQ[i]) {
      unmatchedQuery.push(t.text);
      den += UNMATCHED_QUERY_PENALTY * weight(t);
    }
  });
  candidate.forEach((t, j) => {
    if (!usedC[j]) {
      unmatchedCandidate.push(t.text);
      den += UNMATCHED_CANDIDATE_PENALTY * weight(t);
    }
  });
  return { score: den === 0 ? 0 : num / den, pairs, unmatchedQuery, unmatchedCandidate };
}
