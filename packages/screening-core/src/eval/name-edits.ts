// The edits of the perturbation suite (perturbations.ts): seeded, one alteration of a list name each.

/** mulberry32: a small seeded generator, so the suite is the same on every run and machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;
export const pick = <T>(rnd: Random, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
export const words = (name: string): string[] => name.split(/\s+/).filter(Boolean);
export const isWord = (w: string): boolean => /^[A-Za-z\u00c0-\u024f'-]+$/.test(w);

/** Applies `edit` to one letter position of one word of 3+ letters (a real word, not an initial). */
export function editWord(
  rnd: Random,
  name: string,
  edit: (w: string, i: number) => string,
  minLength = 3,
): string {
  const ws = words(name);
  const targets = ws.map((w, i) => i).filter((i) => isWord(ws[i]!) && ws[i]!.length >= minLength);
  if (targets.length === 0) return name;
  const wi = pick(rnd, targets);
  const w = ws[wi]!;
  ws[wi] = edit(w, Math.floor(rnd() * w.length));
  return ws.join(' ');
}

/** One typo: a substitution, insertion, deletion or swap of neighbours at letter `i` of `w`. */
function typoIn(rnd: Random, w: string, i: number): string {
  const op = Math.floor(rnd() * 4);
  const letter = pick(rnd, [...LETTERS]);
  const cased = w === w.toUpperCase() ? letter.toUpperCase() : letter;
  if (op === 0) return w.slice(0, i) + cased + w.slice(i + 1); // substitution
  if (op === 1) return w.slice(0, i) + cased + w.slice(i); // insertion
  if (op === 2 && w.length > 3) return w.slice(0, i) + w.slice(i + 1); // deletion
  const j = Math.min(i, w.length - 2); // transposition of neighbours
  return w.slice(0, j) + w[j + 1]! + w[j]! + w.slice(j + 2);
}

/**
 * Typos go into words of this many letters or more. One typo in a three-letter word changes a third of
 * it and usually makes another name (`Ali` -> `Ale`, `Swe` -> `Swte`, `Ron` -> `Rnm` with two); a
 * screening that matched those would match every name one letter from a short one.
 */
export const TYPO_MIN_LETTERS = 4;
/** A word takes both typos of `two_typos` only if it is this long; otherwise they go into two words. */
export const TWO_TYPOS_SAME_WORD_MIN_LETTERS = 8;

/**
 * `n` typos, each in a word of {@link TYPO_MIN_LETTERS}+ letters, a word taking a second one only when
 * it has {@link TWO_TYPOS_SAME_WORD_MIN_LETTERS}+ letters. "" when the name has no room for them (the
 * case is drawn again).
 */
export function typos(rnd: Random, name: string, n: number): string {
  const ws = words(name);
  const edited = new Set<number>();
  for (let k = 0; k < n; k += 1) {
    const targets = ws
      .map((_, i) => i)
      .filter(
        (i) =>
          isWord(ws[i]!) &&
          ws[i]!.length >= TYPO_MIN_LETTERS &&
          (!edited.has(i) || ws[i]!.length >= TWO_TYPOS_SAME_WORD_MIN_LETTERS),
      );
    if (targets.length === 0) return '';
    const wi = pick(rnd, targets);
    edited.add(wi);
    ws[wi] = typoIn(rnd, ws[wi]!, Math.floor(rnd() * ws[wi]!.length));
  }
  return ws.join(' ');
}

/** The suite's first rule (kept to report against): typos in any word of 3+ letters, both may hit one word. */
export function typo(rnd: Random, name: string): string {
  return editWord(rnd, name, (w, i) => typoIn(rnd, w, i));
}

const ACCENTED: Record<string, string[]> = {
  a: ['á', 'à', 'â', 'ä', 'ã'],
  e: ['é', 'è', 'ê', 'ë'],
  i: ['í', 'î', 'ï'],
  o: ['ó', 'ô', 'ö', 'õ'],
  u: ['ú', 'ü', 'û'],
  c: ['ç', 'č'],
  n: ['ñ'],
  s: ['š', 'ş'],
  z: ['ž'],
  g: ['ğ'],
};

/** Strips the accents of a name that has them; adds one to three to a name that has none. */
export function accents(rnd: Random, name: string): string {
  const stripped = name.normalize('NFKD').replace(/\p{M}/gu, '');
  if (stripped !== name) return stripped;
  const chars = [...name];
  const at = chars.map((c, i) => i).filter((i) => ACCENTED[chars[i]!.toLowerCase()] !== undefined);
  for (let k = 0, n = 1 + Math.floor(rnd() * 3); k < n && at.length > 0; k += 1) {
    const i = at.splice(Math.floor(rnd() * at.length), 1)[0]!;
    const c = chars[i]!;
    const accented = pick(rnd, ACCENTED[c.toLowerCase()]!);
    chars[i] = c === c.toUpperCase() ? accented.toUpperCase() : accented;
  }
  return chars.join('');
}

const ABBREVIATIONS: Record<string, string> = {
  company: 'Co.',
  limited: 'Ltd',
  corporation: 'Corp.',
  incorporated: 'Inc.',
  'limited liability company': 'LLC',
  'joint stock company': 'JSC',
  establishment: 'Est.',
};
const ADDED_FORMS = [
  'LLC',
  'Ltd',
  'Limited',
  'Inc.',
  'Co.',
  'S.A.',
  'GmbH',
  'JSC',
  'OOO',
  'FZE',
  'Company',
  'Corp',
];
const FORM_WORD =
  /[,\s]+(llc|l\.l\.c\.|ltd\.?|limited|inc\.?|co\.?|company|corp\.?|corporation|s\.a\.?|gmbh|jsc|ooo|fze|pjsc|plc|sarl|s\.a\.r\.l\.)$/i;

/** Abbreviates a legal form written out, removes one written, or adds one to a name without. */
export function legalForm(rnd: Random, name: string): string {
  for (const [full, short] of Object.entries(ABBREVIATIONS)) {
    const re = new RegExp(`\\b${full}\\b`, 'i');
    if (re.test(name) && rnd() < 0.5) return name.replace(re, short);
  }
  if (FORM_WORD.test(name)) return name.replace(FORM_WORD, '');
  return `${name}${rnd() < 0.3 ? ',' : ''} ${pick(rnd, ADDED_FORMS)}`;
}

export function reorder(rnd: Random, name: string): string {
  const ws = words(name.replace(/,/g, ' '));
  if (ws.length === 2 || rnd() < 0.5) return [ws[ws.length - 1]!, ...ws.slice(0, -1)].join(' ');
  return [...ws.slice(1), ws[0]!].join(' ');
}

export function casePunctuation(rnd: Random, name: string): string {
  const ws = words(name);
  const cased = ws.map((w) => {
    const r = rnd();
    if (r < 0.33) return w.toLowerCase();
    if (r < 0.66) return w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();
    return w.toUpperCase();
  });
  const seps = [' ', ' ', '-', ', ', '  ', '. ', ' / '];
  let out = cased[0]!;
  for (let i = 1; i < cased.length; i += 1) out += pick(rnd, seps) + cased[i]!;
  return rnd() < 0.3 ? `${out}.` : out;
}

/**
 * Family name and given names: lists write "FAMILY, Given Middle" or "Given Middle Family" (the family
 * name last), so the comma tells which is which.
 */
export function nameParts(name: string): { family: string[]; given: string[] } {
  const comma = name.indexOf(',');
  if (comma >= 0)
    return { family: words(name.slice(0, comma)), given: words(name.slice(comma + 1).replace(/,/g, ' ')) };
  const ws = words(name);
  return { family: ws.slice(-1), given: ws.slice(0, -1) };
}

/** The first given name and the family name only, or one middle name dropped (written given-first). */
export function dropMiddle(rnd: Random, name: string): string {
  const { family, given } = nameParts(name);
  if (given.length >= 2 && rnd() < 0.5) {
    const i = 1 + Math.floor(rnd() * (given.length - 1));
    return [...given.slice(0, i), ...given.slice(i + 1), ...family].join(' ');
  }
  if (given.length >= 2) return [given[0]!, ...family].join(' ');
  const ws = words(name.replace(/,/g, ' '));
  return `${ws[0]!} ${ws[ws.length - 1]!}`;
}

/** One given name becomes its initial when another stays written out (`Malik A. Karim`). */
export function initials(rnd: Random, name: string): string {
  const { family, given } = nameParts(name);
  if (given.length < 2) return name;
  const i = Math.floor(rnd() * given.length);
  const letter = /[A-Za-z\u00c0-\u024f]/.exec(given[i]!)?.[0] ?? given[i]!.charAt(0);
  given[i] = `${letter.toUpperCase()}.`;
  return [...given, ...family].join(' ');
}
