import { countLinks, requiredFor, requiredLinks } from './matching/name-links';
import { explainNames } from './matching/name-score';
import type { NameSide } from './matching/name-side';
import { nameKind } from './matching/normalize';
import { searchKey, tokenSimilarity } from './matching/token';
import type { ListEntry } from './model';
import { withParses, withReadings, type Parse } from './query-variants';
import { MEMO_ROWS, scratchOf, type Scratch } from './scratch';
import { finish, offer, scoreName, screeningSimilarity, syllableWords, type Scored } from './score';
import { prepareQuery, type ScreeningIndex } from './screening-index';
import {
  minThreshold,
  validate,
  type Hit,
  type ScreeningOptions,
  type ScreeningQuery,
} from './screening-query';

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
