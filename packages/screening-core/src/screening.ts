import { ScreeningQueryInvalidError } from './errors';
import {
  addOption,
  alignable,
  alignNames,
  beginOptions,
  chooseOptions,
  compareSides,
  countLinks,
  explainNames,
  MIN_TOKEN_SIMILARITY,
  OPTION_CANDIDATE_COMPOUND,
  OPTION_QUERY_COMPOUND,
  OPTION_WORDS,
  requiredFor,
  requiredLinks,
  withCompounds,
  type NameComparison,
  type NameSide,
  type TokenPair,
} from './matching/name-score';
import { nameKind, nameTokens, parseName, type NameKind } from './matching/normalize';
import { MAX_QUALIFIER_RAISE, qualify, type QualifierResult } from './matching/qualifiers';
import { KOREAN_READER, type NameReader, type NameReading } from './matching/readings';
import {
  makeCompoundToken,
  searchKey,
  similarityIfAtLeast,
  tokenSimilarity,
  TokenCache,
  unlinkedSimilarityIfAtLeast,
  type Token,
} from './matching/token';
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
  /** The query name's words as written (for a hit through a reading too: its words are in `tokenPairs`). */
  queryTokens: string[];
  candidateTokens: string[];
  tokenPairs: TokenPair[];
  nameScore: number;
  qualifiers: QualifierResult[];
  /** Taken off the score: two or more short words matched only approximately ({@link SHORT_WORD_PENALTY}). */
  shortWordPenalty?: number;
  /** The reading of a Han or Hangul query name that matched, when it was not the name as written. */
  reading?: NameReading;
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

/** A list name: its words and compounds, its entry, and the name as listed. */
interface IndexedName extends NameSide {
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

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}

function prepareName(raw: string, kind: NameKind, cache: TokenCache): Token[] {
  return prepareParsed(raw, kind, cache).tokens;
}

/**
 * A name's distinct words as tokens, and the words its parse removed or found twice (undefined when
 * none): a query word within one typo of one of those costs less when unmatched (DROPPED_WORD_PENALTY).
 */
function prepareParsed(
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
function prepareQuery(
  caches: Pick<ScreeningIndex, 'tokenCache' | 'compoundCache'>,
  query: ScreeningQuery,
  kind: NameKind = nameKind(query.entityType),
): NameSide {
  const tokens = prepareName(query.name, kind, caches.tokenCache);
  return withCompounds(tokens, (text) => caches.compoundCache.get(text));
}

/**
 * How a query name is parsed, and against which entries. A query with an entity type is parsed as that
 * kind (a customer record says what it is). Without one, the name is parsed as a person against every
 * entry, and also as an organisation against organisations and as a vessel against vessels and aircraft
 * when that parse differs (it drops legal forms or vessel prefixes: "TAMAS COMPANY" is `tamas` as an
 * organisation, like its SDN entry); each entry keeps its best score, so the better parse wins. Only names
 * with a legal form or vessel prefix pay for the extra passes.
 */
interface Parse {
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
function withParses(
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

/**
 * Most rows of the similarity memo: a query's words and compounds (2n - 1 for n words). Longer queries
 * (9 words or more, rare) are scored without it. Also keeps query positions within the link bit masks.
 */
const MEMO_ROWS = 16;
/** Stamps restart from zero before they could overflow an Int32Array. */
const MAX_STAMP = 0x7fff0000;

/**
 * Per-index working memory of {@link screen}, reused by every query instead of per-query Sets and Maps
 * (building those was most of the time of a query with common words). Entries are valid only when their
 * stamp is the current one, so nothing is cleared between queries. Safe because screening is synchronous:
 * no two screenings of one index ever interleave.
 */
class Scratch {
  private clock = 0;
  /**
   * Per name, side by side (one cache line per name visited): [3n] the last query-word stamp that counted
   * it, so a name counts once per query word; [3n + 1] the last query stamp that touched it; [3n + 2] the
   * query words linked to it, valid only when [3n + 1] is the current query's.
   */
  readonly nameState: Int32Array;
  /** Names touched by the current query, in first-touch order. */
  readonly touched: Int32Array;
  /** Last query-word stamp that visited the list word, so a word reached by several keys is read once. */
  readonly tokenWord: Int32Array;
  /**
   * Similarity memo by list word (or compound): the query stamp its row was computed for, whether any
   * value of the row can be aligned, and the row itself at `id * stride`: the similarity to each query
   * word, then to each query compound. A name's words are looked up once each, and a list word that
   * pairs with nothing in the query (most of them) is skipped on one byte.
   */
  readonly rowStamp: Int32Array;
  readonly rowLive: Uint8Array;
  rows = new Float64Array(0);
  stride = 0;
  /**
   * Blocking links of list words and compounds in the current query (valid when `linkStamp` is the
   * query's): bit p of `wordLinks` when query word p is linked to it, of `compoundLinks` when the
   * compound of query words p and p + 1 is. Compound pairs are aligned only where linked.
   */
  readonly linkStamp: Int32Array;
  readonly wordLinks: Int32Array;
  readonly compoundLinks: Int32Array;
  /** The words of the name being scored (longer than the name: chooseOptions is given the count). */
  readonly candidate: Token[] = [];

  constructor(
    names: number,
    readonly tokens: number,
  ) {
    this.nameState = new Int32Array(3 * names);
    this.touched = new Int32Array(names);
    this.tokenWord = new Int32Array(tokens);
    this.rowStamp = new Int32Array(tokens);
    this.rowLive = new Uint8Array(tokens);
    this.linkStamp = new Int32Array(tokens);
    this.wordLinks = new Int32Array(tokens);
    this.compoundLinks = new Int32Array(tokens);
  }

  /** A fresh stamp; restarts all stamps (at the start of a query only) before they overflow. */
  tick(newQuery = false): number {
    if (newQuery && this.clock > MAX_STAMP) {
      this.clock = 0;
      for (const a of [this.nameState, this.tokenWord, this.rowStamp, this.linkStamp]) a.fill(0);
    }
    this.clock += 1;
    return this.clock;
  }

  /** Sets the memo's row length for a query (a new query stamp invalidates every row anyway). */
  useStride(stride: number): void {
    if (this.rows.length < stride * this.tokens) this.rows = new Float64Array(stride * this.tokens);
    this.stride = stride;
  }
}

const scratches = new WeakMap<ScreeningIndex, Scratch>();

function scratchOf(index: ScreeningIndex): Scratch {
  let s = scratches.get(index);
  if (!s) {
    s = new Scratch(index.names.length, index.tokens.length);
    scratches.set(index, s);
  }
  return s;
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

function entryAllowed(
  entry: Pick<ListEntry, 'list' | 'entityType'>,
  query: ScreeningQuery,
  parse?: Parse,
): boolean {
  if (query.lists && !query.lists.includes(entry.list)) return false;
  if (query.entityType && entry.entityType !== query.entityType) return false;
  if (parse?.only !== undefined && nameKind(entry.entityType) !== parse.only) return false;
  return true;
}

function validate(query: ScreeningQuery): void {
  if (typeof query.name !== 'string' || query.name.trim() === '')
    throw new ScreeningQueryInvalidError('name is required');
}

/** The best-scoring name of an entry so far; its explanation is worked out only if it becomes a hit. */
interface Scored {
  entry: number;
  name: Pick<IndexedName, 'raw' | 'tokens'>;
  /** The name's score after the name-level rules ({@link nameRules}), before the qualifiers. */
  score: number;
  /** The short-word penalty taken off `score`. */
  penalty: number;
  explain: () => NameComparison;
}

/** Words of at most this many letters are syllable-like: Chinese and Korean names are made of them. */
export const SHORT_WORD_LETTERS = 5;
/** Below this similarity two short words are different syllables, not spellings of one (jeong ~ jong 0.97). */
export const SHORT_WORD_SAME = 0.95;
/**
 * Taken off a name that rests on two or more pairs of short words that are different syllables. Between
 * long words Jaro-Winkler 0.9 is a typo; between three- and four-letter words it is another syllable
 * (yan ~ yun, wang ~ jang, min ~ man), and a Chinese or Korean name of such words met list names it shares
 * no syllable with. On the evaluation sets: negative alerts 38 -> 29 of 50,000 at 0.86 (0.32 % instead of
 * 0.36 % at 0.80), recall unchanged at every threshold; romanisations of one syllable (jeong ~ jong,
 * cheol ~ chol, seong ~ song) stay above SHORT_WORD_SAME and are not penalised.
 */
export const SHORT_WORD_PENALTY = 0.08;

/**
 * The rules on a name's alignment, applied to every name before its entry's best is chosen (an alias
 * that passes them beats one that does not): the short-word penalty (initials are not syllables: an
 * initial meets a word at 0.75 by design), and for a reading at most one inexact word pair
 * ({@link READING_PENALTY}). The penalty, or undefined when the name cannot match through a reading.
 */
function nameRules(pairs: readonly TokenPair[], reading: boolean, queryShort: number): number | undefined {
  let inexact = 0;
  let different = 0;
  for (const p of pairs) {
    if (p.similarity < 1) inexact += 1;
    if (p.similarity >= SHORT_WORD_SAME || p.query.length === 1 || p.candidate.length === 1) continue;
    if (p.query.length <= SHORT_WORD_LETTERS && p.candidate.length <= SHORT_WORD_LETTERS) different += 1;
  }
  if (reading && inexact > 1) return undefined;
  return different >= 2 && queryShort >= 2 ? SHORT_WORD_PENALTY : 0;
}

/**
 * A query with a word this long is not a name of syllables: no Chinese or Korean syllable has more than
 * six letters (zhuang, hyeong), and the short-word penalty is for those. Without the exemption, a long
 * Latin name with typos or another transliteration in two of its short words lost 0.08 too
 * (`KATRANJI, Amri Hahem`, Russian `ехиа`/`хадж` for Yehia/Haj beside `мохамад`).
 */
export const LONG_WORD_LETTERS = 7;

/** {@link shortWords} of a query, 0 when it has a word of {@link LONG_WORD_LETTERS} or more. */
function syllableWords(tokens: readonly Token[]): number {
  for (const t of tokens) if (t.text.length >= LONG_WORD_LETTERS) return 0;
  return shortWords(tokens);
}

/** Words that could make a short-word pair: 2 to SHORT_WORD_LETTERS letters. */
function shortWords(tokens: readonly Token[]): number {
  let n = 0;
  for (const t of tokens) if (t.text.length > 1 && t.text.length <= SHORT_WORD_LETTERS) n += 1;
  return n;
}

/**
 * Offers a scored name as its entry's best: only if it could still reach the floor with the qualifiers
 * is it aligned again with its similarities (`compare`) for the rules of {@link nameRules}, and only
 * when they can apply: through a reading, or with two short words on both sides (`queryShort` is the
 * query's count). Otherwise the alignment waits until the name becomes a hit.
 */
function offer(
  best: Map<number, Scored>,
  entry: number,
  name: Pick<IndexedName, 'raw' | 'tokens'>,
  score: number,
  floor: number,
  reading: boolean,
  queryShort: number,
  compare: () => NameComparison,
): void {
  if (score + MAX_QUALIFIER_RAISE < floor) return;
  if (!reading && (queryShort < 2 || shortWords(name.tokens) < 2)) {
    if (better(best, entry, score, floor))
      best.set(entry, { entry, name, score, penalty: 0, explain: compare });
    return;
  }
  const comparison = compare();
  const penalty = nameRules(comparison.pairs, reading, queryShort);
  if (penalty === undefined || !better(best, entry, score - penalty, floor)) return;
  best.set(entry, { entry, name, score: score - penalty, penalty, explain: () => comparison });
}

function finish(
  index: Pick<ScreeningIndex, 'entries'>,
  best: Map<number, Scored>,
  query: ScreeningQuery,
  queryTokens: readonly Token[],
  options: ScreeningOptions,
): Hit[] {
  const hits: Hit[] = [];
  for (const s of best.values()) {
    const entry = index.entries[s.entry]!;
    const qualifiers = qualify(query, entry);
    const score = round(Math.min(1, Math.max(0, s.score + qualifiers.reduce((a, q) => a + q.delta, 0))));
    if (score < thresholdFor(options, entry.list)) continue;
    const comparison = s.explain();
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
        tokenPairs: comparison.pairs,
        nameScore: round(comparison.score),
        qualifiers,
        ...(s.penalty > 0 ? { shortWordPenalty: s.penalty } : {}),
      },
    });
  }
  hits.sort(byRank);
  return hits.slice(0, options.limit ?? 20);
}

/**
 * Whether a name scoring `score` becomes its entry's best: it could still reach the threshold with
 * the qualifiers, and it beats the entry's best name so far (the first of equals stays).
 */
function better(best: Map<number, Scored>, entry: number, score: number, floor: number): boolean {
  if (score + MAX_QUALIFIER_RAISE < floor) return false;
  const prev = best.get(entry);
  return !prev || score > prev.score;
}

/** Similarity for the alignment of a screening: exact where it can be aligned, else possibly 0. */
const screeningSimilarity = (a: Token, b: Token): number => similarityIfAtLeast(a, b, MIN_TOKEN_SIMILARITY);

/**
 * Fills the memo row of list word (or compound) `id` for the current query and notes whether any of its
 * values can be aligned. A word is compared with every query word, and with the query compounds linked to
 * it; a compound with the query words linked to it (the rest stay 0, as {@link alignNames} ignores them).
 * Pairs that cannot reach MIN_TOKEN_SIMILARITY may get 0 without computing Jaro-Winkler
 * (similarityIfAtLeast): the alignment ignores them either way, so scores are unchanged.
 */
function fillRow(index: ScreeningIndex, scratch: Scratch, query: NameSide, stamp: number, id: number): void {
  const t = index.tokens[id]!;
  const { rows, stride } = scratch;
  const base = id * stride;
  const nq = query.tokens.length;
  const linkedNow = scratch.linkStamp[id] === stamp;
  const wordLinks = linkedNow ? scratch.wordLinks[id]! : 0;
  const compoundLinks = linkedNow ? scratch.compoundLinks[id]! : 0;
  let live = 0;
  if (index.compound[id] === 1) {
    for (let i = 0; i < nq; i += 1) {
      const s = wordLinks & (1 << i) ? similarityIfAtLeast(query.tokens[i]!, t, MIN_TOKEN_SIMILARITY) : 0;
      rows[base + i] = s;
      if (s >= MIN_TOKEN_SIMILARITY) live = 1;
    }
  } else {
    for (let i = 0; i < nq; i += 1) {
      const q = query.tokens[i]!;
      // The blocking tells which query words are linked to this word; the others skip the sound and
      // skeleton comparisons, which cannot apply to them.
      const s =
        wordLinks & (1 << i)
          ? similarityIfAtLeast(q, t, MIN_TOKEN_SIMILARITY)
          : unlinkedSimilarityIfAtLeast(q, t, MIN_TOKEN_SIMILARITY);
      rows[base + i] = s;
      if (alignable(s, q, t)) live = 1;
    }
    for (let k = 0; k < nq - 1; k += 1) {
      const s =
        compoundLinks & (1 << k) ? similarityIfAtLeast(query.compounds[k]!, t, MIN_TOKEN_SIMILARITY) : 0;
      rows[base + nq + k] = s;
      if (s >= MIN_TOKEN_SIMILARITY) live = 1;
    }
  }
  scratch.rowStamp[id] = stamp;
  scratch.rowLive[id] = live;
}

/**
 * Score of a list name for the current query: the options of {@link alignNames} with
 * similarityIfAtLeast, read from the memo rows, then {@link chooseOptions}. Same score as
 * `alignNames(query, name, screeningSimilarity)`, which explains it.
 */
function scoreName(
  index: ScreeningIndex,
  scratch: Scratch,
  query: NameSide,
  stamp: number,
  nameId: number,
): number {
  const qt = query.tokens;
  const nq = qt.length;
  if (2 * nq - 1 > MEMO_ROWS) return alignNames(query, index.names[nameId]!, screeningSimilarity);
  // Everything below reads flat arrays and the (shared, hot) list words, not the name's own objects:
  // the query with the most common words scores thousands of names, most of which never become hits.
  const { rows, stride, rowStamp, rowLive, linkStamp } = scratch;
  const ids = index.nameTokenIds;
  const offset = index.nameOffset[nameId]!;
  const nc = index.nameLength[nameId]!;
  // First only whether any word or linked compound of the name can pair with the query: for most names
  // a common-word query reaches, none can (the shared word aside, which needs a second link), and that
  // is known from the memo flags alone.
  let live = 0;
  for (let j = 0; j < nc; j += 1) {
    const id = ids[offset + j]!;
    if (rowStamp[id] !== stamp) fillRow(index, scratch, query, stamp, id);
    live |= rowLive[id]!;
  }
  for (let j = 0; j + 1 < nc; j += 1) {
    const id = ids[offset + nc + j]!;
    if (id < 0 || linkStamp[id] !== stamp) continue;
    if (rowStamp[id] !== stamp) fillRow(index, scratch, query, stamp, id);
    live |= rowLive[id]!;
  }
  if (live === 0) return 0;
  const candidate = scratch.candidate;
  beginOptions(nq, nc);
  for (let j = 0; j < nc; j += 1) {
    const id = ids[offset + j]!;
    const c = index.tokens[id]!;
    candidate[j] = c;
    if (rowLive[id] === 0) continue;
    const base = id * stride;
    for (let i = 0; i < nq; i += 1) {
      const s = rows[base + i]!;
      if (alignable(s, qt[i]!, c)) addOption(OPTION_WORDS, s, i, j, qt[i]!, c);
    }
    if (c.initial) continue;
    for (let k = 0; k < nq - 1; k += 1) {
      const s = rows[base + nq + k]!;
      if (s >= MIN_TOKEN_SIMILARITY) addOption(OPTION_QUERY_COMPOUND, s, k, j, query.compounds[k]!, c);
    }
  }
  for (let j = 0; j + 1 < nc; j += 1) {
    const id = ids[offset + nc + j]!;
    // Most compounds ("putinvladimir") are linked to no query word: nothing to align.
    if (id < 0 || linkStamp[id] !== stamp || rowLive[id] === 0) continue;
    const base = id * stride;
    const cc = index.tokens[id]!;
    for (let i = 0; i < nq; i += 1) {
      const s = rows[base + i]!;
      if (!qt[i]!.initial && s >= MIN_TOKEN_SIMILARITY)
        addOption(OPTION_CANDIDATE_COMPOUND, s, i, j, qt[i]!, cc);
    }
  }
  return chooseOptions(qt, candidate, nc, undefined, index.nameDropped[nameId]);
}

/**
 * Visits every name containing a list word or compound carrying one of `keys` (a name once per `stamp`),
 * and notes the link of query position `position` (its word, or its compound) to each of them.
 */
function visitKeys(
  index: ScreeningIndex,
  scratch: Scratch,
  keys: readonly string[],
  position: number,
  fromCompound: boolean,
  stamp: number,
  queryStamp: number,
  count: number,
  touchNames = true,
): number {
  const { nameState, touched, tokenWord, linkStamp, wordLinks, compoundLinks } = scratch;
  const { postingStart, postings } = index;
  const bit = position < 31 ? 1 << position : 0;
  for (const key of keys) {
    const ids = index.keyToTokens.get(searchKey(key));
    if (ids === undefined) continue;
    for (const tokenId of ids) {
      // A query compound meets list words only.
      if (fromCompound && index.compound[tokenId] === 1) continue;
      if (linkStamp[tokenId] !== queryStamp) {
        linkStamp[tokenId] = queryStamp;
        wordLinks[tokenId] = 0;
        compoundLinks[tokenId] = 0;
      }
      if (fromCompound) compoundLinks[tokenId] = compoundLinks[tokenId]! | bit;
      else wordLinks[tokenId] = wordLinks[tokenId]! | bit;
      if (!touchNames || tokenWord[tokenId] === stamp) continue;
      tokenWord[tokenId] = stamp;
      for (let p = postingStart[tokenId]!, end = postingStart[tokenId + 1]!; p < end; p += 1) {
        const nameId = postings[p]!;
        const at = 3 * nameId;
        if (nameState[at] === stamp) continue;
        nameState[at] = stamp;
        if (nameState[at + 1] === queryStamp) nameState[at + 2] = nameState[at + 2]! + 1;
        else {
          nameState[at + 1] = queryStamp;
          nameState[at + 2] = 1;
          touched[count] = nameId;
          count += 1;
        }
      }
    }
  }
  return count;
}

/**
 * Collects the names sharing blocking keys with the query and counts, per name, the query words linked
 * to it ({@link countLinks}: a word through its own keys, which meet list words and compounds, or through
 * its compound with the next word, which meets list words only). Returns how many names were touched.
 */
function collectCandidates(
  index: ScreeningIndex,
  scratch: Scratch,
  query: NameSide,
  queryStamp: number,
  exactOnly: boolean,
): number {
  let count = 0;
  query.tokens.forEach((token, p) => {
    if (token.initial) return;
    const stamp = scratch.tick();
    const compound = query.compounds[p];
    if (!exactOnly) {
      count = visitKeys(index, scratch, token.keys, p, false, stamp, queryStamp, count);
      if (compound !== undefined)
        count = visitKeys(index, scratch, compound.keys, p, true, stamp, queryStamp, count);
      return;
    }
    // Names are collected by the exact key (the first of a word or compound: its text); the other keys
    // only mark the words they link, so that a collected name scores as it would otherwise.
    count = visitKeys(index, scratch, token.keys.slice(0, 1), p, false, stamp, queryStamp, count);
    if (compound !== undefined)
      count = visitKeys(index, scratch, compound.keys.slice(0, 1), p, true, stamp, queryStamp, count);
    visitKeys(index, scratch, token.keys.slice(1), p, false, stamp, queryStamp, count, false);
    if (compound !== undefined)
      visitKeys(index, scratch, compound.keys.slice(1), p, true, stamp, queryStamp, count, false);
  });
  return count;
}

/**
 * Screens one party against the indexed lists. Only names sharing enough blocking keys with the
 * query are scored, so the cost depends on how common the query's words are, not on list size.
 */
export function screen(index: ScreeningIndex, query: ScreeningQuery, options: ScreeningOptions = {}): Hit[] {
  validate(query);
  return withParses(query, options, (parse, po) =>
    withReadings(index.reader, query, po, parse, (q, reading, o) => screenName(index, q, o, parse, reading)),
  );
}

/**
 * One name. A reading collects list names by the exact key of its words only (list words carry it for their
 * one-deletion variants too): a hit through it may rest on one inexact word pair at most (see
 * {@link READING_PENALTY}), so names it only meets through phonetic or skeleton keys of short syllables
 * could rarely become hits, and scoring them was most of a reading's cost.
 */
function screenName(
  index: ScreeningIndex,
  query: ScreeningQuery,
  options: ScreeningOptions,
  parse: Parse,
  reading = false,
): Hit[] {
  const side = prepareQuery(index, query, parse.kind);
  const queryShort = syllableWords(side.tokens);
  const floor = minThreshold(options);
  const scratch = scratchOf(index);
  const queryStamp = scratch.tick(true);
  scratch.useStride(Math.min(MEMO_ROWS, Math.max(1, 2 * side.tokens.length - 1)));
  const touched = collectCandidates(index, scratch, side, queryStamp, reading);
  const queryWords = side.tokens.filter((t) => !t.initial).length;
  // Which (list, entity type) kinds of names the query may match, by kind code.
  const allowed = Uint8Array.from(index.nameKinds, (kind) => (entryAllowed(kind, query, parse) ? 1 : 0));
  const best = new Map<number, Scored>();
  for (let k = 0; k < touched; k += 1) {
    const nameId = scratch.touched[k]!;
    // The link gate (requiredLinks): the counts come from the blocking itself.
    if (scratch.nameState[3 * nameId + 2]! < requiredFor(queryWords, index.nameWords[nameId]!)) continue;
    if (allowed[index.nameKind[nameId]!] === 0) continue;
    const score = scoreName(index, scratch, side, queryStamp, nameId);
    const name = index.names[nameId]!;
    // Aligned again with its similarities only if it could reach the floor.
    offer(best, index.nameEntry[nameId]!, name, score, floor, reading, queryShort, () =>
      explainNames(side, name, screeningSimilarity),
    );
  }
  return finish(index, best, query, side.tokens, options);
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
  return withParses(query, options, (parse, po) =>
    withReadings(index.reader, query, po, parse, (q, reading, o) =>
      screenNameExhaustive(index, q, o, parse, reading),
    ),
  );
}

function screenNameExhaustive(
  index: ScreeningIndex,
  query: ScreeningQuery,
  options: ScreeningOptions,
  parse: Parse,
  reading: boolean,
): Hit[] {
  const side = prepareQuery(index, query, parse.kind);
  const queryShort = syllableWords(side.tokens);
  const floor = minThreshold(options);
  const best = new Map<number, Scored>();
  for (const name of index.names) {
    if (!entryAllowed(index.entries[name.entry]!, query, parse)) continue;
    if (countLinks(side, name, reading) < requiredLinks(side.tokens, name.tokens)) continue;
    const comparison = explainNames(side, name, tokenSimilarity);
    offer(best, name.entry, name, comparison.score, floor, reading, queryShort, () => comparison);
  }
  return finish(index, best, query, side.tokens, options);
}

/** Scores a query against a single entry (all its names, and the query's readings), with no threshold. */
export function scoreEntry(
  query: ScreeningQuery,
  entry: ListEntry,
  reader: NameReader = KOREAN_READER,
): Hit | undefined {
  validate(query);
  const options = { threshold: 0, limit: 1 };
  return withParses(query, options, (parse, po) =>
    parse.only !== undefined && parse.only !== nameKind(entry.entityType)
      ? []
      : withReadings(reader, query, po, parse, (q, reading) => scoreEntryName(q, entry, parse, reading)),
  )[0];
}

function scoreEntryName(query: ScreeningQuery, entry: ListEntry, parse: Parse, reading: boolean): Hit[] {
  const cache = new TokenCache(1000);
  const side = prepareQuery(
    { tokenCache: cache, compoundCache: new TokenCache(1000, makeCompoundToken) },
    query,
    parse.kind,
  );
  const queryShort = syllableWords(side.tokens);
  const kind = nameKind(entry.entityType);
  const best = new Map<number, Scored>();
  for (const raw of entry.names) {
    const { tokens, dropped } = prepareParsed(raw, kind, cache);
    if (tokens.length === 0) continue;
    const comparison = compareSides(
      side,
      { ...withCompounds(tokens, makeCompoundToken), dropped },
      tokenSimilarity,
    );
    offer(best, 0, { raw, tokens }, comparison.score, 0, reading, queryShort, () => comparison);
  }
  return finish({ entries: [entry] }, best, query, side.tokens, { threshold: 0, limit: 1 });
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
function withReadings(
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

function byRank(a: Hit, b: Hit): number {
  return b.score - a.score || a.source.localeCompare(b.source) || a.entryId.localeCompare(b.entryId);
}
