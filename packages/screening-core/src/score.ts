import {
  addOption,
  alignable,
  alignNames,
  beginOptions,
  chooseOptions,
  OPTION_CANDIDATE_COMPOUND,
  OPTION_QUERY_COMPOUND,
  OPTION_WORDS,
} from './matching/alignment';
import { compareSides, type NameComparison, type TokenPair } from './matching/name-score';
import { MIN_TOKEN_SIMILARITY } from './matching/name-score-weights';
import { withCompounds, type NameSide } from './matching/name-side';
import { nameKind } from './matching/normalize';
import { MAX_QUALIFIER_RAISE, qualify } from './matching/qualifiers';
import { KOREAN_READER, type NameReader } from './matching/readings';
import {
  makeCompoundToken,
  similarityIfAtLeast,
  unlinkedSimilarityIfAtLeast,
  tokenSimilarity,
  TokenCache,
  type Token,
} from './matching/token';
import type { ListEntry } from './model';
import { withParses, withReadings, type Parse } from './query-variants';
import { MEMO_ROWS, type Scratch } from './scratch';
import { prepareParsed, prepareQuery, type IndexedName, type ScreeningIndex } from './screening-index';
import {
  byRank,
  round,
  thresholdFor,
  validate,
  type Hit,
  type ScreeningOptions,
  type ScreeningQuery,
} from './screening-query';

/** The best-scoring name of an entry so far; its explanation is worked out only if it becomes a hit. */
export interface Scored {
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
export function syllableWords(tokens: readonly Token[]): number {
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
export function offer(
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

export function finish(
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
export const screeningSimilarity = (a: Token, b: Token): number =>
  similarityIfAtLeast(a, b, MIN_TOKEN_SIMILARITY);

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
export function scoreName(
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
