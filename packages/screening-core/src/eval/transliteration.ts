import path from 'node:path';
import cyrillicToTranslit from 'cyrillic-to-translit-js';
import { readLines } from './datasets';
import { words } from './name-edits';

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

export function transliterate(name: string, one: (word: string) => string): string {
  return words(name.replace(/[,.]/g, ' '))
    .map((w) => one(w.normalize('NFKD').replace(/\p{M}/gu, '')))
    .join(' ');
}
