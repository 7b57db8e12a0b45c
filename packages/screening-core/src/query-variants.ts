import { nameKind, nameTokens, type NameKind } from './matching/normalize';
import type { NameReader } from './matching/readings';
import {
  byRank,
  round,
  thresholdFor,
  type Hit,
  type ScreeningOptions,
  type ScreeningQuery,
} from './screening-query';

/**
 * How a query name is parsed, and against which entries. A query with an entity type is parsed as that
 * kind (a customer record says what it is). Without one, the name is parsed as a person against every
 * entry, and also as an organisation against organisations and as a vessel against vessels and aircraft
 * when that parse differs (it drops legal forms or vessel prefixes: "TAMAS COMPANY" is `tamas` as an
 * organisation, like its SDN entry); each entry keeps its best score, so the better parse wins. Only names
 * with a legal form or vessel prefix pay for the extra passes.
 */
export interface Parse {
  kind: NameKind;
  /** Entries of this kind only; undefined: every entry. */
  only?: NameKind;
}

function parsesOf(query: ScreeningQuery): Parse[] {
  if (query.entityType !== undefined) return [{ kind: nameKind(query.entityType) }];
  const person = nameTokens(query.name, 'person').join(' ');
  const parses: Parse[] = [{ kind: 'person' }];
  for (const kind of ['organization', 'vessel'] as const) {
    if (nameTokens(query.name, kind).join(' ') !== person) parses.push({ kind, only: kind });
  }
  return parses;
}

/** Runs `run` once per parse of the query and keeps every entry's best hit (limit applied after). */
export function withParses(
  query: ScreeningQuery,
  options: ScreeningOptions,
  run: (parse: Parse, options: ScreeningOptions) => Hit[],
): Hit[] {
  const parses = parsesOf(query);
  if (parses.length === 1) return run(parses[0]!, options);
  const unlimited = { ...options, limit: Number.MAX_SAFE_INTEGER };
  const best = new Map<string, Hit>();
  for (const parse of parses) {
    for (const hit of run(parse, unlimited)) {
      const key = `${hit.source}\u0000${hit.entryId}`;
      const seen = best.get(key);
      if (!seen || hit.score > seen.score) best.set(key, hit);
    }
  }
  return [...best.values()].sort(byRank).slice(0, options.limit ?? 20);
}

/**
 * A reading is a guess at the name's language (a name in Chinese characters may be Chinese, Korean or
 * Japanese), so a hit through a reading is weaker evidence than one of the name as written: its score is
 * lowered by this much, and it may rest on at most one inexact word. Korean and Chinese syllables are
 * short and few; without the rule, "song hun choe" met "CHOE, Chun Yong" at 0.92 by two near-syllables
 * (song ~ yong, hun ~ chun), and such pairs were most of the negative alerts the readings added.
 */
export const READING_PENALTY = 0.03;

/**
 * Screens the name as written and each of its readings (none for most names), keeping every entry's best
 * hit; a hit found through a reading says which.
 */
export function withReadings(
  reader: NameReader,
  query: ScreeningQuery,
  options: ScreeningOptions,
  parse: Parse,
  run: (query: ScreeningQuery, reading: boolean, options: ScreeningOptions) => Hit[],
): Hit[] {
  const hits = run(query, false, options);
  const readings = reader(query.name);
  if (readings.length === 0) return hits;
  // The name as written, in the explanation of a hit through a reading too: suppression of a decided
  // hit is keyed by it (a corrected name must bring the hit back even when both read the same).
  const written = [...new Set(nameTokens(query.name, parse.kind))];
  // Every hit of a reading: the limit applies to the merged, penalised list.
  const unlimited = { ...options, limit: Number.MAX_SAFE_INTEGER };
  const best = new Map<string, Hit>();
  const keep = (hit: Hit) => {
    const key = `${hit.source}\u0000${hit.entryId}`;
    const seen = best.get(key);
    if (!seen || hit.score > seen.score) best.set(key, hit);
  };
  hits.forEach(keep);
  for (const reading of readings) {
    for (const hit of run({ ...query, name: reading.name }, true, unlimited)) {
      const score = round(hit.score - READING_PENALTY);
      if (score < thresholdFor(options, hit.list)) continue;
      keep({ ...hit, score, explanation: { ...hit.explanation, queryTokens: written, reading } });
    }
  }
  return [...best.values()].sort(byRank).slice(0, options.limit ?? 20);
}
