import type { Token } from './matching/token';
import type { ScreeningIndex } from './screening-index';

/**
 * Most rows of the similarity memo: a query's words and compounds (2n - 1 for n words). Longer queries
 * (9 words or more, rare) are scored without it. Also keeps query positions within the link bit masks.
 */
export const MEMO_ROWS = 16;
/** Stamps restart from zero before they could overflow an Int32Array. */
const MAX_STAMP = 0x7fff0000;

/**
 * Per-index working memory of {@link screen}, reused by every query instead of per-query Sets and Maps
 * (building those was most of the time of a query with common words). Entries are valid only when their
 * stamp is the current one, so nothing is cleared between queries. Safe because screening is synchronous:
 * no two screenings of one index ever interleave.
 */
export class Scratch {
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

export function scratchOf(index: ScreeningIndex): Scratch {
  let s = scratches.get(index);
  if (!s) {
    s = new Scratch(index.names.length, index.tokens.length);
    scratches.set(index, s);
  }
  return s;
}
