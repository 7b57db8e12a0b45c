import path from 'node:path';
import cyrillicToTranslit from 'cyrillic-to-translit-js';
import type { ListEntry, ListSnapshot } from '../model';
import { foldName, PARTICLES, TITLES } from '../matching/normalize';
import { readLines } from './datasets';

/**
 * A perturbation suite generated from the real lists with a fixed seed (issue #16): list names altered
 * the way customer data alters them, one kind of alteration per case, each case knowing the entry it must
 * find. The visible evaluation sets are too easy to show where the matcher misses.
 */
export const PERTURBATION_KINDS = [
  'one_typo',
  'two_typos',
  'doubled_letter',
  'dropped_letter',
  'accents',
  'legal_form',
  'token_reorder',
  'case_punctuation',
  'middle_names_dropped',
  'initials',
  'cyrillic',
  'arabic_script',
] as const;
export type PerturbationKind = (typeof PERTURBATION_KINDS)[number];

export interface PerturbationCase {
  kind: PerturbationKind;
  /** The altered name (the query). */
  query: string;
  /** The list name it was made from. */
  original: string;
  source: string;
  entryId: string;
  entityType: ListEntry['entityType'];
}

export const PERTURBATION_SEED = 16;
export const CASES_PER_KIND = 300;

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

type Random = () => number;
const pick = <T>(rnd: Random, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const LATIN = /^[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f .,'()/&-]*$/;
const words = (name: string): string[] => name.split(/\s+/).filter(Boolean);
const isWord = (w: string): boolean => /^[A-Za-z\u00c0-\u024f'-]+$/.test(w);

/** Applies `edit` to one letter position of one word of 3+ letters (a real word, not an initial). */
function editWord(rnd: Random, name: string, edit: (w: string, i: number) => string, minLength = 3): string {
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
function typos(rnd: Random, name: string, n: number): string {
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
function typo(rnd: Random, name: string): string {
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
function accents(rnd: Random, name: string): string {
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
function legalForm(rnd: Random, name: string): string {
  for (const [full, short] of Object.entries(ABBREVIATIONS)) {
    const re = new RegExp(`\\b${full}\\b`, 'i');
    if (re.test(name) && rnd() < 0.5) return name.replace(re, short);
  }
  if (FORM_WORD.test(name)) return name.replace(FORM_WORD, '');
  return `${name}${rnd() < 0.3 ? ',' : ''} ${pick(rnd, ADDED_FORMS)}`;
}

function reorder(rnd: Random, name: string): string {
  const ws = words(name.replace(/,/g, ' '));
  if (ws.length === 2 || rnd() < 0.5) return [ws[ws.length - 1]!, ...ws.slice(0, -1)].join(' ');
  return [...ws.slice(1), ws[0]!].join(' ');
}

function casePunctuation(rnd: Random, name: string): string {
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
function nameParts(name: string): { family: string[]; given: string[] } {
  const comma = name.indexOf(',');
  if (comma >= 0)
    return { family: words(name.slice(0, comma)), given: words(name.slice(comma + 1).replace(/,/g, ' ')) };
  const ws = words(name);
  return { family: ws.slice(-1), given: ws.slice(0, -1) };
}

/** The first given name and the family name only, or one middle name dropped (written given-first). */
function dropMiddle(rnd: Random, name: string): string {
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
function initials(rnd: Random, name: string): string {
  const { family, given } = nameParts(name);
  if (given.length < 2) return name;
  const i = Math.floor(rnd() * given.length);
  const letter = /[A-Za-z\u00c0-\u024f]/.exec(given[i]!)?.[0] ?? given[i]!.charAt(0);
  given[i] = `${letter.toUpperCase()}.`;
  return [...given, ...family].join(' ');
}

/** Word -> its most frequent rendering in the Wikidata transliteration pairs (CC0, see SOURCES.md). */
function readPairs(file: string): Map<string, string> {
  const best = new Map<string, { script: string; count: number }>();
  for (const line of readLines(file)) {
    const [latin, chars, count] = line.split('\t');
    if (!latin || !chars) continue;
    const n = Number(count) || 0;
    const seen = best.get(latin);
    if (!seen || n > seen.count) best.set(latin, { script: chars.replace(/ /g, ''), count: n });
  }
  return new Map([...best].map(([k, v]) => [k, v.script]));
}

/** Latin letters cyrillic-to-translit-js leaves as they are (its Russian preset has no h, w, q, x, j, c). */
const CYRILLIC_LEFTOVERS: Record<string, string> = {
  h: 'х',
  w: 'в',
  q: 'к',
  x: 'кс',
  j: 'дж',
  c: 'к',
};
const toCyrillic = cyrillicToTranslit({ preset: 'ru' });

export interface Transliterators {
  cyrillic(word: string): string;
  arabic(word: string): string;
}

/**
 * Latin to Arabic script for words the Wikidata pairs do not hold. No maintained npm package goes this
 * way, so a table: consonants and digraphs by their usual letters, long vowels (`aa`, `ee`, `i`, `oo`,
 * `ou`, `u`, `o`) as alif, ya and waw, short `a` and `e` inside a word not written (the script writes
 * no short vowels), a vowel at the start of a word as alif, doubled letters once.
 */
const ARABIC_DIGRAPHS: Array<[string, string]> = [
  ['kh', 'خ'],
  ['sh', 'ش'],
  ['th', 'ث'],
  ['dh', 'ذ'],
  ['gh', 'غ'],
  ['ch', 'تش'],
  ['ph', 'ف'],
  ['aa', 'ا'],
  ['ee', 'ي'],
  ['ii', 'ي'],
  ['oo', 'و'],
  ['ou', 'و'],
];
const ARABIC_SINGLE: Record<string, string> = {
  b: 'ب',
  t: 'ت',
  j: 'ج',
  h: 'ه',
  d: 'د',
  r: 'ر',
  z: 'ز',
  s: 'س',
  f: 'ف',
  q: 'ق',
  k: 'ك',
  l: 'ل',
  m: 'م',
  n: 'ن',
  w: 'و',
  y: 'ي',
  g: 'غ',
  p: 'ب',
  v: 'ف',
  c: 'ك',
  x: 'كس',
  i: 'ي',
  u: 'و',
  o: 'و',
  a: '',
  e: '',
};

export function arabicByTable(word: string): string {
  const w = word.toLowerCase().replace(/(.)\1/g, (m, c: string) => ('aeiou'.includes(c) ? m : c));
  let out = /^[aeiou]/.test(w) ? 'ا' : '';
  let i = /^[aeiou]/.test(w) && !/^(ou|oo|ee|ii)/.test(w) ? 1 : 0;
  while (i < w.length) {
    const two = w.slice(i, i + 2);
    const digraph = ARABIC_DIGRAPHS.find(([l]) => l === two);
    if (digraph) {
      out += digraph[1];
      i += 2;
      continue;
    }
    const c = w[i]!;
    // A final a is written (alif): "Fatima" -> فاطما would be wrong inside, right at the end.
    out += c === 'a' && i === w.length - 1 ? 'ا' : (ARABIC_SINGLE[c] ?? '');
    i += 1;
  }
  return out;
}

export function loadTransliterators(dataDir: string): Transliterators {
  const dir = path.join(dataDir, 'matching', 'transliteration');
  const russian = readPairs(path.join(dir, 'wd_russian_20'));
  const arabic = readPairs(path.join(dir, 'wd_arabic_20'));
  return {
    cyrillic: (word) => {
      const w = word.toLowerCase();
      const known = russian.get(w);
      if (known) return known;
      return [...toCyrillic.reverse(w)].map((c) => CYRILLIC_LEFTOVERS[c] ?? c).join('');
    },
    arabic: (word) => arabic.get(word.toLowerCase()) ?? arabicByTable(word),
  };
}

function transliterate(name: string, one: (word: string) => string): string {
  return words(name.replace(/[,.]/g, ' '))
    .map((w) => one(w.normalize('NFKD').replace(/\p{M}/gu, '')))
    .join(' ');
}

interface Source {
  entry: ListEntry;
  name: string;
}

const PERSON_KINDS: ReadonlySet<PerturbationKind> = new Set([
  'token_reorder',
  'middle_names_dropped',
  'initials',
  'cyrillic',
  'arabic_script',
]);

/**
 * Whether a name carries a title or particle word ("AL ATHARI, Khaled", "AASI, Sheikh Yusuf"): dropping
 * middle names or writing initials around it picks the wrong words (`AL Khaled` keeps a particle and a
 * given name, no family name; `Sheikh Y. AASI` abbreviates the only given name), so such names are not
 * used for those two kinds.
 */
function hasTitleOrParticle(name: string): boolean {
  return foldName(name)
    .split(' ')
    .some((w) => TITLES.has(w) || PARTICLES.has(w));
}

function applicable(kind: PerturbationKind, s: Source, firstRules: boolean): boolean {
  const ws = words(s.name.replace(/,/g, ' '));
  const person = s.entry.entityType === 'INDIVIDUAL';
  if (kind === 'legal_form') return s.entry.entityType === 'ORGANIZATION';
  if (PERSON_KINDS.has(kind) && !person) return false;
  if ((kind === 'middle_names_dropped' || kind === 'initials') && !firstRules && hasTitleOrParticle(s.name))
    return false;
  if (kind === 'middle_names_dropped') return ws.length >= 3 && ws.every(isWord);
  if (kind === 'initials') return ws.every(isWord) && nameParts(s.name).given.length >= 2;
  if (person && ws.length < 2) return false;
  return ws.some((w) => isWord(w) && w.length >= 3);
}

function perturb(
  kind: PerturbationKind,
  rnd: Random,
  name: string,
  t: Transliterators,
  firstRules: boolean,
): string {
  switch (kind) {
    case 'one_typo':
      return firstRules ? typo(rnd, name) : typos(rnd, name, 1);
    case 'two_typos':
      return firstRules ? typo(rnd, typo(rnd, name)) : typos(rnd, name, 2);
    case 'doubled_letter':
      return editWord(rnd, name, (w, i) => w.slice(0, i + 1) + w[i]! + w.slice(i + 1));
    case 'dropped_letter':
      return editWord(rnd, name, (w, i) => w.slice(0, i) + w.slice(i + 1), 4);
    case 'accents':
      return accents(rnd, name);
    case 'legal_form':
      return legalForm(rnd, name);
    case 'token_reorder':
      return reorder(rnd, name);
    case 'case_punctuation':
      return casePunctuation(rnd, name);
    case 'middle_names_dropped':
      return dropMiddle(rnd, name);
    case 'initials':
      return initials(rnd, name);
    case 'cyrillic':
      return transliterate(name, t.cyrillic);
    case 'arabic_script':
      return transliterate(name, t.arabic);
    default: {
      const never: never = kind;
      throw new Error(`unknown perturbation ${String(never)}`);
    }
  }
}

/** The kinds whose rules changed since the suite's first version (reported under both rules). */
export const RULE_CHANGED_KINDS: readonly PerturbationKind[] = [
  'one_typo',
  'two_typos',
  'middle_names_dropped',
  'initials',
];

/**
 * `perKind` cases of every kind from the names (primary and aliases, Latin script, up to 60 characters)
 * of the sanctions and PEP lists, drawn with `seed`. A case whose alteration changes nothing is drawn
 * again. Deterministic for given lists.
 */
export function generatePerturbations(
  snapshots: readonly ListSnapshot[],
  transliterators: Transliterators,
  {
    seed = PERTURBATION_SEED,
    perKind = CASES_PER_KIND,
    kinds = PERTURBATION_KINDS,
    firstRules = false,
  }: {
    seed?: number;
    perKind?: number;
    kinds?: readonly PerturbationKind[];
    /**
     * The suite's first rules: typos in any word of 3+ letters, two in one word; middle names dropped and
     * initials also from names with titles and particles.
     */
    firstRules?: boolean;
  } = {},
): PerturbationCase[] {
  const sources: Source[] = [];
  for (const s of snapshots) {
    if (s.list !== 'SANCTIONS' && s.list !== 'PEP') continue;
    for (const entry of s.entries) {
      if (entry.entityType !== 'INDIVIDUAL' && entry.entityType !== 'ORGANIZATION') continue;
      for (const name of entry.names)
        if (name.length <= 60 && LATIN.test(name)) sources.push({ entry, name });
    }
  }
  const cases: PerturbationCase[] = [];
  for (const [k, kind] of PERTURBATION_KINDS.entries()) {
    if (!kinds.includes(kind)) continue;
    const rnd = seededRandom(seed * 1000 + k);
    const pool = sources.filter((s) => applicable(kind, s, firstRules));
    const used = new Set<string>();
    for (
      let tries = 0;
      cases.filter((c) => c.kind === kind).length < perKind && tries < perKind * 20;
      tries += 1
    ) {
      const s = pick(rnd, pool);
      if (used.has(s.name)) continue;
      const query = perturb(kind, rnd, s.name, transliterators, firstRules).trim();
      if (query === '' || query === s.name) continue;
      used.add(s.name);
      cases.push({
        kind,
        query,
        original: s.name,
        source: s.entry.source,
        entryId: s.entry.id,
        entityType: s.entry.entityType,
      });
    }
  }
  return cases;
}
