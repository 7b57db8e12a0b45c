import { ScreeningQueryInvalidError } from './errors';
import { compareNames, countLinks, requiredLinks, type TokenPair } from './matching/name-score';
import { nameKind, nameTokens, type NameKind } from './matching/normalize';
import { MAX_QUALIFIER_RAISE, qualify, type QualifierResult } from './matching/qualifiers';
import { TokenCache, searchKey, tokenSimilarity, type Token } from './matching/token';
import type { EntityType, Identifier, ListEntry, ListSnapshot, ListSource, ScreeningList } from './model';

/**
 * Default alert threshold for every list. Chosen on the evaluation sets (docs/screening.md): it keeps
 * recall of the treated UN positives above 98 % while fewer than 0.5 % of synthetic negatives alert.
 */
export const DEFAULT_THRESHOLD = 0.86;

export interface ScreeningQuery {
  name: string;
  entityType?: EntityType;
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  birthDate?: string;
  /** ISO alpha-2 codes or English country names. */
  countries?: string[];
  identifiers?: Identifier[];
  /** Lists to screen against; all when omitted. */
  lists?: ScreeningList[];
}

export interface ScreeningOptions {
  /** One threshold for all lists, or per list (lists left out use {@link DEFAULT_THRESHOLD}). */
  threshold?: number | Partial<Record<ScreeningList, number>>;
  /** Most hits to return (after sorting); default 20. */
  limit?: number;
}

export interface HitExplanation {
  matchedName: string;
  queryTokens: string[];
  candidateTokens: string[];
  tokenPairs: TokenPair[];
  nameScore: number;
  qualifiers: QualifierResult[];
}

export interface Hit {
  list: ScreeningList;
  source: ListSource;
  entryId: string;
  entityType: EntityType;
  names: string[];
  matchedName: string;
  score: number;
  explanation: HitExplanation;
}

interface IndexedName {
  entry: number;
  raw: string;
  tokens: Token[];
}

/** Everything a screening needs, built once per set of snapshots. Immutable after {@link buildIndex}. */
export interface ScreeningIndex {
  readonly snapshots: ReadonlyArray<
    Pick<ListSnapshot, 'list' | 'source' | 'version' | 'entryCount' | 'loadedAt'>
  >;
  readonly entries: readonly ListEntry[];
  readonly names: readonly IndexedName[];
  /** Blocking key -> ids of distinct tokens carrying it. */
  readonly keyToTokens: ReadonlyMap<string, readonly number[]>;
  /** Distinct token id -> ids of names containing it. */
  readonly tokenToNames: readonly (readonly number[])[];
  readonly tokenCache: TokenCache;
}

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}

function prepareName(raw: string, kind: NameKind, cache: TokenCache): Token[] {
  const seen = new Set<string>();
  const out: Token[] = [];
  for (const t of nameTokens(raw, kind)) {
    if (seen.has(t)) continue;
    seen.add(t);
    out.push(cache.get(t));
  }
  return out;
}

/** Indexes every name of every entry by its words' blocking keys (exact, one-edit and phonetic). */
export function buildIndex(snapshots: readonly ListSnapshot[]): ScreeningIndex {
  const tokenCache = new TokenCache(Number.MAX_SAFE_INTEGER);
  const entries: ListEntry[] = [];
  const names: IndexedName[] = [];
  const tokenIds = new Map<string, number>();
  const tokenToNames: number[][] = [];
  const keyToTokens = new Map<string, number[]>();
  for (const snapshot of snapshots) {
    for (const entry of snapshot.entries) {
      const entryIdx = entries.push(entry) - 1;
      const kind = nameKind(entry.entityType);
      for (const raw of entry.names) {
        const tokens = prepareName(raw, kind, tokenCache);
        if (tokens.length === 0) continue;
        const nameIdx = names.push({ entry: entryIdx, raw, tokens }) - 1;
        for (const token of tokens) {
          if (token.initial) continue;
          let id = tokenIds.get(token.text);
          if (id === undefined) {
            id = tokenToNames.push([]) - 1;
            tokenIds.set(token.text, id);
            for (const key of token.keys) {
              const bucket = keyToTokens.get(key);
              if (bucket) bucket.push(id);
              else keyToTokens.set(key, [id]);
            }
          }
          tokenToNames[id]!.push(nameIdx);
        }
      }
    }
  }
  // Query words are analysed with their own bounded cache so a long-running service does not grow.
  const queryCache = new TokenCache(50_000);
  return {
    snapshots: snapshots.map(({ list, source, version, entryCount, loadedAt }) => ({
      list,
      source,
      version,
      entryCount,
      loadedAt,
    })),
    entries,
    names,
    keyToTokens,
    tokenToNames,
    tokenCache: queryCache,
  };
}

function thresholdFor(options: ScreeningOptions, list: ScreeningList): number {
  const t = options.threshold;
  if (typeof t === 'number') return t;
  return t?.[list] ?? DEFAULT_THRESHOLD;
}

function minThreshold(options: ScreeningOptions): number {
  const t = options.threshold;
  if (typeof t === 'number') return t;
  return Math.min(
    DEFAULT_THRESHOLD,
    ...Object.values(t ?? {}).filter((v): v is number => typeof v === 'number'),
  );
}

function entryAllowed(entry: ListEntry, query: ScreeningQuery): boolean {
  if (query.lists && !query.lists.includes(entry.list)) return false;
  if (query.entityType && entry.entityType !== query.entityType) return false;
  return true;
}

function validate(query: ScreeningQuery): void {
  if (typeof query.name !== 'string' || query.name.trim() === '')
    throw new ScreeningQueryInvalidError('name is required');
}

interface Scored {
  entry: number;
  name: IndexedName;
  comparison: ReturnType<typeof compareNames>;
}

function finish(
  index: Pick<ScreeningIndex, 'entries'>,
  best: Map<number, Scored>,
  query: ScreeningQuery,
  queryTokens: Token[],
  options: ScreeningOptions,
): Hit[] {
  const hits: Hit[] = [];
  for (const s of best.values()) {
    const entry = index.entries[s.entry]!;
    const qualifiers = qualify(query, entry);
    const score = round(
      Math.min(1, Math.max(0, s.comparison.score + qualifiers.reduce((a, q) => a + q.delta, 0))),
    );
    if (score < thresholdFor(options, entry.list)) continue;
    hits.push({
      list: entry.list,
      source: entry.source,
      entryId: entry.id,
      entityType: entry.entityType,
      names: entry.names,
      matchedName: s.name.raw,
      score,
      explanation: {
        matchedName: s.name.raw,
        queryTokens: queryTokens.map((t) => t.text),
        candidateTokens: s.name.tokens.map((t) => t.text),
        tokenPairs: s.comparison.pairs,
        nameScore: round(s.comparison.score),
        qualifiers,
      },
    });
  }
  hits.sort(
    (a, b) => b.score - a.score || a.source.localeCompare(b.source) || a.entryId.localeCompare(b.entryId),
  );
  return hits.slice(0, options.limit ?? 20);
}

type Similarity = (a: Token, b: Token) => number;

/** Per-query memo of word similarities: common list words ("mohammed") recur in thousands of names. */
function memoSimilarity(): Similarity {
  const memo = new Map<Token, Map<Token, number>>();
  return (a, b) => {
    let row = memo.get(a);
    if (!row) {
      row = new Map();
      memo.set(a, row);
    }
    let s = row.get(b);
    if (s === undefined) {
      s = tokenSimilarity(a, b);
      row.set(b, s);
    }
    return s;
  };
}

function consider(
  best: Map<number, Scored>,
  name: IndexedName,
  queryTokens: Token[],
  floor: number,
  similarity: Similarity = tokenSimilarity,
): void {
  const comparison = compareNames(queryTokens, name.tokens, similarity);
  if (comparison.score + MAX_QUALIFIER_RAISE < floor) return;
  const prev = best.get(name.entry);
  if (!prev || comparison.score > prev.comparison.score)
    best.set(name.entry, { entry: name.entry, name, comparison });
}

/**
 * Screens one party against the indexed lists. Only names sharing enough blocking keys with the
 * query are scored, so the cost depends on how common the query's words are, not on list size.
 */
export function screen(index: ScreeningIndex, query: ScreeningQuery, options: ScreeningOptions = {}): Hit[] {
  validate(query);
  const queryTokens = prepareName(query.name, nameKind(query.entityType), index.tokenCache);
  const floor = minThreshold(options);
  const links = new Map<number, number>();
  for (const token of queryTokens) {
    if (token.initial) continue;
    const names = new Set<number>();
    for (const key of token.keys) {
      for (const tokenId of index.keyToTokens.get(searchKey(key)) ?? []) {
        for (const nameId of index.tokenToNames[tokenId]!) names.add(nameId);
      }
    }
    for (const nameId of names) links.set(nameId, (links.get(nameId) ?? 0) + 1);
  }
  const best = new Map<number, Scored>();
  const similarity = memoSimilarity();
  for (const [nameId, count] of links) {
    const name = index.names[nameId]!;
    if (count < requiredLinks(queryTokens, name.tokens)) continue;
    if (!entryAllowed(index.entries[name.entry]!, query)) continue;
    consider(best, name, queryTokens, floor, similarity);
  }
  return finish(index, best, query, queryTokens, options);
}

/**
 * Reference implementation without blocking: scores every name of every entry. Used to check the
 * index never loses a hit; far too slow for production.
 */
export function screenExhaustive(
  index: ScreeningIndex,
  query: ScreeningQuery,
  options: ScreeningOptions = {},
): Hit[] {
  validate(query);
  const queryTokens = prepareName(query.name, nameKind(query.entityType), index.tokenCache);
  const floor = minThreshold(options);
  const best = new Map<number, Scored>();
  for (const name of index.names) {
    if (!entryAllowed(index.entries[name.entry]!, query)) continue;
    if (countLinks(queryTokens, name.tokens) < requiredLinks(queryTokens, name.tokens)) continue;
    consider(best, name, queryTokens, floor);
  }
  return finish(index, best, query, queryTokens, options);
}

/** Scores a query against a single entry (all its names), with no threshold. */
export function scoreEntry(query: ScreeningQuery, entry: ListEntry): Hit | undefined {
  validate(query);
  const cache = new TokenCache(1000);
  const queryTokens = prepareName(query.name, nameKind(query.entityType), cache);
  const kind = nameKind(entry.entityType);
  const best = new Map<number, Scored>();
  for (const raw of entry.names) {
    const tokens = prepareName(raw, kind, cache);
    if (tokens.length === 0) continue;
    consider(best, { entry: 0, raw, tokens }, queryTokens, 0);
  }
  return finish({ entries: [entry] }, best, query, queryTokens, { threshold: 0, limit: 1 })[0];
}
