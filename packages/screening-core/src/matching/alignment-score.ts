import {
  COVERED_MIN_SIMILARITY,
  COVERED_MIN_WEIGHT,
  DROPPED_WORD_PENALTY,
  UNMATCHED_CANDIDATE_PENALTY,
  UNMATCHED_CANDIDATE_PENALTY_COVERED,
  UNMATCHED_QUERY_PENALTY,
  weight,
} from './name-score-weights';
import { oneEditApart } from './normalize';
import { consonantSkeleton, type Token } from './token';

/**
 * The score of an alignment with at least one pair of full words: `num` and `den` are the weighted
 * similarity sum and the weight of its chosen pairs; `usedQ` and `usedC` flag the words it paired (the
 * first `query.length` and `nc` entries are read). Unmatched words of either side are added to the
 * denominator at a reduced weight: a query word at {@link UNMATCHED_QUERY_PENALTY} (or
 * {@link DROPPED_WORD_PENALTY} when it stands for one of `dropped`), a candidate word at
 * {@link UNMATCHED_CANDIDATE_PENALTY}, or {@link UNMATCHED_CANDIDATE_PENALTY_COVERED} when the query is
 * covered.
 */
export function alignmentScore(
  num: number,
  den: number,
  query: readonly Token[],
  usedQ: Uint8Array,
  candidate: readonly Token[],
  usedC: Uint8Array,
  nc: number,
  dropped: readonly string[] | undefined,
): number {
  const nq = query.length;
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
