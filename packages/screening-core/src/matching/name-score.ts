import { alignNames, OPTION_CANDIDATE_COMPOUND, OPTION_QUERY_COMPOUND, type AlignedPair } from './alignment';
import { countLinks, requiredLinks } from './name-links';
import { withCompounds, type NameSide } from './name-side';
import { makeCompoundToken, tokenSimilarity, type Token } from './token';

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
