import { withCompounds, type NameSide } from './matching/name-side';
import { nameKind, parseName, type NameKind } from './matching/normalize';
import { KOREAN_READER, type NameReader } from './matching/readings';
import { makeCompoundToken, TokenCache, type Token } from './matching/token';
import type { ListEntry, ListSnapshot } from './model';
import type { ScreeningQuery } from './screening-query';

/** A list name: its words and compounds, its entry, and the name as listed. */
export interface IndexedName extends NameSide {
  entry: number;
  raw: string;
}

/** Everything a screening needs, built once per set of snapshots. Immutable after {@link buildIndex}. */
export interface ScreeningIndex {
  readonly snapshots: ReadonlyArray<
    Pick<ListSnapshot, 'list' | 'source' | 'version' | 'entryCount' | 'loadedAt'>
  >;
  readonly entries: readonly ListEntry[];
  readonly names: readonly IndexedName[];
  /** Distinct words and compounds of the lists, by id. */
  readonly tokens: readonly Token[];
  /** Per id: 1 for a compound of two words of a list name (see {@link NameSide}). */
  readonly compound: Uint8Array;
  /**
   * Word and compound ids of every name from `nameOffset[name]`: its words, then its compounds (-1 where
   * there is none). The ids key the per-query similarity memo.
   */
  readonly nameTokenIds: Int32Array;
  /** Blocking key -> ids of distinct words (not initials) and compounds carrying it. */
  readonly keyToTokens: ReadonlyMap<string, readonly number[]>;
  /**
   * Word or compound id -> ids of names containing it (none for initials, which link nothing), flat:
   * the names of id are `postings[postingStart[id] .. postingStart[id + 1])`. One array, not one per
   * word, so the blocking walks contiguous memory.
   */
  readonly postingStart: Int32Array;
  readonly postings: Int32Array;
  /**
   * Per name, flat, so that screening reads a candidate name's objects only once it scores: words that
   * are not initials (for the link gate, requiredLinks; capped at 255, the gate needs at most 2), entry,
   * offset in nameTokenIds, word count, and kind (a code for its list and entity type, see nameKinds).
   */
  readonly nameWords: Uint8Array;
  readonly nameEntry: Int32Array;
  readonly nameOffset: Int32Array;
  readonly nameLength: Int32Array;
  readonly nameKind: Uint8Array;
  readonly nameKinds: ReadonlyArray<Pick<ListEntry, 'list' | 'entityType'>>;
  /** Per name: the words its parse removed ({@link NameSide.dropped}), undefined for most names. */
  readonly nameDropped: ReadonlyArray<readonly string[] | undefined>;
  /** Bounded caches of query words and query compounds. */
  readonly tokenCache: TokenCache;
  readonly compoundCache: TokenCache;
  /** Other spellings of a Han or Hangul query name ({@link createNameReader}), screened besides it. */
  readonly reader: NameReader;
}

export interface IndexOptions {
  /** Default: Korean readings only (Japanese needs a dictionary, see `loadJapaneseTokenizer`). */
  reader?: NameReader;
}

function prepareName(raw: string, kind: NameKind, cache: TokenCache): Token[] {
  return prepareParsed(raw, kind, cache).tokens;
}

/**
 * A name's distinct words as tokens, and the words its parse removed or found twice (undefined when
 * none): a query word within one typo of one of those costs less when unmatched (DROPPED_WORD_PENALTY).
 */
export function prepareParsed(
  raw: string,
  kind: NameKind,
  cache: TokenCache,
): { tokens: Token[]; dropped: readonly string[] | undefined } {
  const parsed = parseName(raw, kind);
  const seen = new Set<string>();
  const out: Token[] = [];
  const dropped = parsed.dropped;
  for (const t of parsed.tokens) {
    if (seen.has(t)) {
      // A repeated word ("VALLE VALLE", "AUNG, Thet Thet") is compared once; a query that repeats it
      // with a typo ("VALLLE VALLE") has the repetition the list name has.
      if (t.length >= 3 && !dropped.includes(t)) dropped.push(t);
      continue;
    }
    seen.add(t);
    out.push(cache.get(t));
  }
  return { tokens: out, dropped: dropped.length > 0 ? dropped : undefined };
}

/** A query's words with their compounds, analysed through the index's query caches. */
export function prepareQuery(
  caches: Pick<ScreeningIndex, 'tokenCache' | 'compoundCache'>,
  query: ScreeningQuery,
  kind: NameKind = nameKind(query.entityType),
): NameSide {
  const tokens = prepareName(query.name, kind, caches.tokenCache);
  return withCompounds(tokens, (text) => caches.compoundCache.get(text));
}

function flattenPostings(lists: readonly (readonly number[])[]): {
  postingStart: Int32Array;
  postings: Int32Array;
} {
  const postingStart = new Int32Array(lists.length + 1);
  for (let i = 0; i < lists.length; i += 1) postingStart[i + 1] = postingStart[i]! + lists[i]!.length;
  const postings = new Int32Array(postingStart[lists.length]!);
  lists.forEach((list, i) => postings.set(list, postingStart[i]!));
  return { postingStart, postings };
}

/**
 * Indexes every name of every entry by the blocking keys of its words (exact, one-edit, phonetic,
 * skeleton) and of its compounds (exact, skeleton, canonical). Each word is analysed once, here, so a
 * screening only analyses the query.
 */
export function buildIndex(snapshots: readonly ListSnapshot[], options: IndexOptions = {}): ScreeningIndex {
  const tokenCache = new TokenCache(Number.MAX_SAFE_INTEGER);
  const compoundCache = new TokenCache(Number.MAX_SAFE_INTEGER, makeCompoundToken);
  const entries: ListEntry[] = [];
  const names: IndexedName[] = [];
  const tokens: Token[] = [];
  const compound: number[] = [];
  const tokenIds = new Map<Token, number>();
  const tokenToNames: number[][] = [];
  const keyToTokens = new Map<string, number[]>();
  const nameTokenIds: number[] = [];
  const nameOffset: number[] = [];
  const nameWords: number[] = [];
  const nameKindCodes: number[] = [];
  const nameKinds: Array<Pick<ListEntry, 'list' | 'entityType'>> = [];
  const kindOf = (entry: ListEntry): number => {
    let code = nameKinds.findIndex((k) => k.list === entry.list && k.entityType === entry.entityType);
    if (code < 0) code = nameKinds.push({ list: entry.list, entityType: entry.entityType }) - 1;
    return code;
  };
  const idOf = (token: Token, isCompound: boolean): number => {
    let id = tokenIds.get(token);
    if (id === undefined) {
      id = tokens.push(token) - 1;
      compound.push(isCompound ? 1 : 0);
      tokenIds.set(token, id);
      tokenToNames.push([]);
      for (const key of token.keys) {
        const bucket = keyToTokens.get(key);
        if (bucket) bucket.push(id);
        else keyToTokens.set(key, [id]);
      }
    }
    return id;
  };
  for (const snapshot of snapshots) {
    for (const entry of snapshot.entries) {
      const entryIdx = entries.push(entry) - 1;
      const kind = nameKind(entry.entityType);
      for (const raw of entry.names) {
        const parsed = prepareParsed(raw, kind, tokenCache);
        const side = withCompounds(parsed.tokens, (text) => compoundCache.get(text));
        if (side.tokens.length === 0) continue;
        const nameIdx = names.length;
        nameOffset.push(nameTokenIds.length);
        let words = 0;
        for (const token of side.tokens) {
          const id = idOf(token, false);
          nameTokenIds.push(id);
          if (!token.initial) {
            words += 1;
            tokenToNames[id]!.push(nameIdx);
          }
        }
        for (const token of side.compounds) {
          if (token === undefined) {
            nameTokenIds.push(-1);
            continue;
          }
          const id = idOf(token, true);
          nameTokenIds.push(id);
          const postings = tokenToNames[id]!;
          // Listed once per name, even if two splits of the same letters give it twice ("ab c a bc").
          if (postings[postings.length - 1] !== nameIdx) postings.push(nameIdx);
        }
        names.push({
          entry: entryIdx,
          raw,
          tokens: side.tokens,
          compounds: side.compounds,
          dropped: parsed.dropped,
        });
        nameWords.push(Math.min(words, 255));
        nameKindCodes.push(kindOf(entry));
      }
    }
  }
  // Query words are analysed with their own bounded caches so a long-running service does not grow.
  const queryCache = new TokenCache(50_000);
  const queryCompoundCache = new TokenCache(50_000, makeCompoundToken);
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
    tokens,
    compound: Uint8Array.from(compound),
    nameTokenIds: Int32Array.from(nameTokenIds),
    keyToTokens,
    ...flattenPostings(tokenToNames),
    nameWords: Uint8Array.from(nameWords),
    nameEntry: Int32Array.from(names, (n) => n.entry),
    nameOffset: Int32Array.from(nameOffset),
    nameLength: Int32Array.from(names, (n) => n.tokens.length),
    nameKind: Uint8Array.from(nameKindCodes),
    nameKinds,
    nameDropped: names.map((n) => n.dropped),
    tokenCache: queryCache,
    compoundCache: queryCompoundCache,
    reader: options.reader ?? KOREAN_READER,
  };
}
