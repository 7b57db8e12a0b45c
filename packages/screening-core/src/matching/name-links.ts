import type { NameSide } from './name-side';
import { linked, linkedExactly, type Token } from './token';

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
