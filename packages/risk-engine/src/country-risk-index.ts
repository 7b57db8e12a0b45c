import { normaliseCountry } from './country-code';
import type { CountryRiskTable } from './risk-matrix';

export interface CountryRating {
  /** Normalised alpha-2 code, or undefined when the value is not a known country code. */
  code: string | undefined;
  score: number;
  /** Ids of the lists the country is on. */
  lists: string[];
}

export interface CountryRiskIndex {
  rate(value: string): CountryRating;
  isOnList(value: string, listIds: readonly string[]): boolean;
}

// A matrix is immutable once validated, so its index is built once per matrix object.
const indexes = new WeakMap<CountryRiskTable, CountryRiskIndex>();

export function countryRiskIndex(table: CountryRiskTable): CountryRiskIndex {
  const cached = indexes.get(table);
  if (cached) return cached;
  const listsByCountry = new Map<string, string[]>();
  for (const [listId, list] of Object.entries(table.lists)) {
    if (list === undefined) continue;
    for (const raw of list.countries) {
      const code = normaliseCountry(raw);
      if (code === undefined) continue;
      const lists = listsByCountry.get(code) ?? [];
      if (!lists.includes(listId)) lists.push(listId);
      listsByCountry.set(code, lists);
    }
  }
  const explicitScores = new Map<string, number>();
  for (const [raw, score] of Object.entries(table.countryScores ?? {})) {
    const code = normaliseCountry(raw);
    if (code !== undefined) explicitScores.set(code, Math.max(score, explicitScores.get(code) ?? 0));
  }
  const index: CountryRiskIndex = {
    rate(value) {
      const code = normaliseCountry(value);
      if (code === undefined) return { code, score: table.unknownCountryScore, lists: [] };
      const lists = listsByCountry.get(code) ?? [];
      const listScores = lists.map((listId) => table.lists[listId]?.score ?? 0);
      const explicit = explicitScores.get(code);
      const score =
        listScores.length === 0 && explicit === undefined
          ? table.defaultScore
          : Math.max(...listScores, explicit ?? 0);
      return { code, score, lists };
    },
    isOnList(value, listIds) {
      const code = normaliseCountry(value);
      if (code === undefined) return false;
      const lists = listsByCountry.get(code) ?? [];
      return listIds.some((listId) => lists.includes(listId));
    },
  };
  indexes.set(table, index);
  return index;
}
