import { alignNames } from './alignment';
import {
  COVERED_MIN_SIMILARITY,
  COVERED_MIN_WEIGHT,
  MIN_TOKEN_SIMILARITY,
  UNMATCHED_CANDIDATE_PENALTY,
  UNMATCHED_CANDIDATE_PENALTY_COVERED,
  UNMATCHED_QUERY_PENALTY,
  weight,
} from './name-score-weights';
import { makeToken, type Token } from './token';

/**
 * The alignment as it was first written: every pair at or above the minimum (or with an initial) sorted
 * by similarity, then heavier candidate word (a stable sort keeps (i, j) order among equals), taken in one
 * pass. alignNames must give bit-for-bit the same score on word pairs.
 */
function sortAndPass(query: Token[], candidate: Token[], sims: number[][]): number {
  const options: Array<[number, number, number]> = [];
  query.forEach((q, i) =>
    candidate.forEach((c, j) => {
      const s = sims[i]![j]!;
      if (s >= MIN_TOKEN_SIMILARITY || (s > 0 && (q.initial || c.initial))) options.push([s, i, j]);
    }),
  );
  options.sort((a, b) => b[0] - a[0] || weight(candidate[b[2]]!) - weight(candidate[a[2]]!));
  const usedQ = new Set<number>();
  const usedC = new Set<number>();
  let num = 0;
  let den = 0;
  let full = false;
  for (const [s, i, j] of options) {
    if (usedQ.has(i) || usedC.has(j)) continue;
    usedQ.add(i);
    usedC.add(j);
    const q = query[i]!;
    const c = candidate[j]!;
    const w = q.initial || c.initial ? 1 : (weight(q) + weight(c)) / 2;
    num += s * w;
    den += w;
    if (!q.initial && !c.initial) full = true;
  }
  if (!full) return 0;
  const covered =
    den >= COVERED_MIN_WEIGHT &&
    num >= COVERED_MIN_SIMILARITY * den &&
    usedQ.size === query.length &&
    query.filter((t) => !t.initial).length >= 2;
  query.forEach((t, i) => {
    if (!usedQ.has(i)) den += UNMATCHED_QUERY_PENALTY * weight(t);
  });
  candidate.forEach((t, j) => {
    if (!usedC.has(j))
      den += (covered ? UNMATCHED_CANDIDATE_PENALTY_COVERED : UNMATCHED_CANDIDATE_PENALTY) * weight(t);
  });
  return num / den;
}

describe('alignment', () => {
  it('scores word pairs exactly like the sort-based formulation, ties included', () => {
    const texts = ['j', 'ann', 'mohammed', 'li', 'alexandria', 'k', 'bo', 'smith', 'wei', 'abdullahi'];
    const values = [0, 0.3, 0.75, 0.8, 0.85, 0.9, 0.9, 1];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const mismatches: string[] = [];
    for (let round = 0; round < 3000; round += 1) {
      // Fresh token objects, so the similarity can be looked up by position.
      const query = Array.from({ length: 1 + next(5) }, () => makeToken(texts[next(texts.length)]!));
      const candidate = Array.from({ length: 1 + next(5) }, () => makeToken(texts[next(texts.length)]!));
      const sims = query.map(() => candidate.map(() => values[next(values.length)]!));
      const position = new Map<Token, number>(
        [...query.entries(), ...candidate.entries()].map(([i, t]) => [t, i]),
      );
      const similarity = (a: Token, b: Token) => sims[position.get(a)!]![position.get(b)!]!;
      const ours = alignNames(
        { tokens: query, compounds: [] },
        { tokens: candidate, compounds: [] },
        similarity,
      );
      const reference = sortAndPass(query, candidate, sims);
      if (ours !== reference) mismatches.push(`round ${round}: ${ours} vs ${reference}`);
    }
    expect(mismatches).toEqual([]);
  });
});
