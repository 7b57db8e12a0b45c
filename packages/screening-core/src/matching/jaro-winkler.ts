/**
 * Jaro-Winkler similarity (boost threshold 0.7, prefix scale 0.1, prefix of up to 4 characters).
 *
 * The same algorithm and floating-point expressions as `talisman/metrics/jaro-winkler`, so it returns
 * exactly the same numbers (the unit test compares them), without its four arrays per call: this is
 * the innermost function of a screening, called thousands of times for a query made of common words.
 */

// Scratch reused across calls (the function is synchronous and re-entrant-free).
let matchedLong = new Uint8Array(32);
let matchedShort = new Uint8Array(32);

function jaro(a: string, b: string): number {
  if (a === b) return 1;
  // Same roles as talisman: on equal lengths `b` is the longer one.
  const short = a.length > b.length ? b : a;
  const long = a.length > b.length ? a : b;
  const ls = short.length;
  const ll = long.length;
  if (matchedLong.length < ll) matchedLong = new Uint8Array(ll * 2);
  if (matchedShort.length < ls) matchedShort = new Uint8Array(ls * 2);
  matchedLong.fill(0, 0, ll);
  matchedShort.fill(0, 0, ls);
  const range = Math.max(((ll / 2) | 0) - 1, 0);
  let matches = 0;
  for (let i = 0; i < ls; i += 1) {
    const ch = short.charCodeAt(i);
    const end = Math.min(i + range + 1, ll);
    for (let j = Math.max(i - range, 0); j < end; j += 1) {
      if (matchedLong[j] === 0 && long.charCodeAt(j) === ch) {
        matchedLong[j] = 1;
        matchedShort[i] = 1;
        matches += 1;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  // Matched characters of each string, in order, compared position by position.
  let transpositions = 0;
  let j = 0;
  for (let i = 0; i < ls; i += 1) {
    if (matchedShort[i] === 0) continue;
    while (matchedLong[j] === 0) j += 1;
    if (short.charCodeAt(i) !== long.charCodeAt(j)) transpositions += 1;
    j += 1;
  }
  const t = (transpositions / 2) | 0;
  const m = matches;
  return (m / a.length + m / b.length + (m - t) / m) / 3;
}

const BOOST_THRESHOLD = 0.7;
const SCALING_FACTOR = 0.1;

export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const dj = jaro(a, b);
  if (dj < BOOST_THRESHOLD) return dj;
  const prefixLimit = Math.min(a.length, b.length, 4);
  let l = 0;
  while (l < prefixLimit && a.charCodeAt(l) === b.charCodeAt(l)) l += 1;
  return dj + l * SCALING_FACTOR * (1 - dj);
}
