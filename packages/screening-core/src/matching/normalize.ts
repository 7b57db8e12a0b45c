import { transliterate } from 'transliteration';
import type { EntityType } from '../model';
import { foldAccents } from './fold';
import { koreanRevised, romanizeKana } from './romanize';

/** Honorifics, ranks and religious titles that say nothing about who a person is. */
export const TITLES: ReadonlySet<string> = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'sir',
  'dame',
  'lord',
  'lady',
  'hon',
  'honorable',
  'rev',
  'sheikh',
  'shaikh',
  'shaykh',
  'sheik',
  'cheikh',
  'haji',
  'hajji',
  'hadji',
  'alhaj',
  'alhaji',
  'hajj',
  'mullah',
  'mulla',
  'maulavi',
  'mawlawi',
  'maulvi',
  'maulana',
  'mawlana',
  'qari',
  'imam',
  'ayatollah',
  'emir',
  'amir',
  'president',
  'presidente',
  'prasident',
  'predsjednik',
  'presedintele',
  'presiden',
  'elnok',
  'prezident',
  'presidentti',
  'general',
  'gen',
  'col',
  'colonel',
  'capt',
  'captain',
  'maj',
  'major',
  'lt',
  'sgt',
  'brig',
  'senator',
  'sen',
  'rep',
  'representative',
  'congressman',
  'congresswoman',
  'minister',
  'jr',
  'sr',
  'ii',
  'iii',
  'iv',
]);

/** Name particles that publishers write, join or drop inconsistently ("al-Qahtani", "bin Laden", "van Dijk"). */
export const PARTICLES: ReadonlySet<string> = new Set([
  'al',
  'el',
  'ul',
  'bin',
  'ibn',
  'bint',
  'binti',
  'ben',
  'bte',
  'de',
  'del',
  'della',
  'der',
  'den',
  'di',
  'da',
  'das',
  'dos',
  'du',
  'la',
  'le',
  'van',
  'von',
  'y',
  'of',
  'the',
  'and',
]);

/** Company legal forms, written without dots ("S.A." arrives here as "sa"). */
export const LEGAL_FORMS: ReadonlySet<string> = new Set([
  'llc',
  'ltd',
  'limited',
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'co',
  'company',
  'plc',
  'llp',
  'lp',
  'gmbh',
  'ag',
  'kg',
  'mbh',
  'sa',
  'sas',
  'sarl',
  'srl',
  'spa',
  'sl',
  'sad',
  'sae',
  'bv',
  'nv',
  'oy',
  'ab',
  'as',
  'asa',
  'aps',
  'jsc',
  'ojsc',
  'cjsc',
  'pjsc',
  'ooo',
  'zao',
  'oao',
  'pao',
  'ao',
  'tov',
  'pp',
  'chp',
  'ip',
  'fze',
  'fzco',
  'fzc',
  'fzllc',
  'fz',
  'dmcc',
  'pte',
  'pty',
  'sdn',
  'bhd',
  'tbk',
  'pt',
  'kft',
  'zrt',
  'sro',
  'doo',
  'dd',
  'ad',
  'ead',
  'ltda',
  'cv',
  'ska',
  'sp',
  'zoo',
  'kk',
  'jsc',
  'sal',
  'wll',
  'spc',
  'est',
  'establishment',
  'llp',
  'gie',
]);

/** Vessel name prefixes ("M/V", "MT"). */
const VESSEL_PREFIXES: ReadonlySet<string> = new Set(['mv', 'mt', 'ss', 'mys', 'fv']);

export type NameKind = 'person' | 'organization' | 'vessel';

export function nameKind(entityType: EntityType | undefined): NameKind {
  if (entityType === 'INDIVIDUAL' || entityType === undefined) return 'person';
  if (entityType === 'VESSEL' || entityType === 'AIRCRAFT') return 'vessel';
  return 'organization';
}

/**
 * Arabic script writes consonants and long vowels only. Its letters are mapped to their usual Latin
 * consonants (the generic transliteration gives "mHmd aaly" for "محمد علي"), and the letters that stand
 * for a vowel (alif, ta marbuta, hamza, ain) are dropped; waw and ya stay w and y. An Arabic word
 * becomes a vowelless token ("mhmd", "khld", "ly"), which token.ts compares by consonant skeleton.
 */
const ARABIC_LETTERS: Readonly<Record<string, string>> = {
  ب: 'b',
  ت: 't',
  ث: 'th',
  ج: 'j',
  ح: 'h',
  خ: 'kh',
  د: 'd',
  ذ: 'dh',
  ر: 'r',
  ز: 'z',
  س: 's',
  ش: 'sh',
  ص: 's',
  ض: 'd',
  ط: 't',
  ظ: 'z',
  غ: 'gh',
  ف: 'f',
  ق: 'q',
  ك: 'k',
  ل: 'l',
  م: 'm',
  ن: 'n',
  ه: 'h',
  پ: 'p',
  چ: 'ch',
  ژ: 'zh',
  گ: 'g',
  ک: 'k',
  ی: '',
  ا: '',
  أ: '',
  إ: '',
  آ: '',
  ٱ: '',
  ء: '',
  ؤ: '',
  ئ: '',
  و: 'w',
  ي: 'y',
  ى: 'y',
  ة: '',
  ع: '',
};
// Letters, then the vowel marks (harakat) a word may carry: separate classes, the marks combine.
const ARABIC_WORD = /(?:[\u0621-\u064a\u0671-\u06d3]|[\u064b-\u065f])+/g;

function arabicToSkeleton(word: string): string {
  let out = '';
  for (const ch of word) out += ARABIC_LETTERS[ch] ?? '';
  return out;
}

/** Folds a name to lower-case ASCII words: transliteration, NFKD accent folding, punctuation removal. */
export function foldName(name: string): string {
  // Hangul is written without spaces between given-name syllables; romanising syllable by syllable
  // (Revised Romanization) lets "김정은" line up with "Kim Jong Un". Kana in Hepburn.
  const latin = transliterate(romanizeKana(koreanRevised(name)).replace(ARABIC_WORD, arabicToSkeleton), {
    unknown: ' ',
  });
  return (
    foldAccents(latin)
      .toLowerCase()
      .replace(/['’ʼ`´]/g, '')
      .replace(/(\p{L})\.(?=\p{L}\.)/gu, '$1')
      .replace(/\./g, '')
      .replace(/[^a-z0-9]+/g, ' ')
      // Russian дж is "dzh" in the official transliteration and "j" in most list spellings of the same
      // names (Джабер: Dzhaber / Jaber, Джохар: Dzhokhar / Jokhar): two letters apart, never linked. No
      // Latin-script name writes "dzh" for anything else, so it is folded to "j" on both sides.
      .replace(/dzh/g, 'j')
      .trim()
  );
}

/** Legal forms long enough that a word one typo away is still recognisably one (`COMAPNY`, `LIMITEDD`). */
const LONG_LEGAL_FORMS: readonly string[] = [...LEGAL_FORMS].filter((f) => f.length >= 6);

/**
 * Whether `a` and `b` are at most one edit apart: a substitution, an insertion, a deletion or a swap of
 * two neighbouring letters (optimal string alignment distance <= 1).
 */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // substitution
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // swap
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * A legal form as typed with one slip (`COMAPNY`, `LIMITEDD`, `LIMIED`, `CORPORATOIN`): of six letters or
 * more, and the word five or more. A misspelt legal form left in an organisation's name counted as an
 * extra word the list name lacks (`... SHIPPING COMPANY LIMITEDD` scored 0 against its entry).
 */
export function isMisspeltLegalForm(word: string): boolean {
  if (word.length < 5 || LEGAL_FORMS.has(word)) return false;
  for (const form of LONG_LEGAL_FORMS) if (oneEditApart(word, form)) return true;
  return false;
}

/** Arabic-script letters (one is enough to tell a name is written in the script). */
const ARABIC_SCRIPT = /[\u0600-\u06ff]/;
const HAS_VOWEL = /[aeiou]/;

/**
 * Comparable tokens of a name: folded words without titles, particles and (for organisations)
 * legal forms. If removing them would leave nothing, the folded words are kept.
 *
 * A name of single letters only links nothing (initials are not blocking keys), so it could never be
 * found, even searched exactly: letters are written together as one word (`B R C S.A.` -> `brc`,
 * `K M A` -> `kma`, `G-9` -> `g9`), and a single letter left after the removals brings the removed words
 * back (`LADY D`, a vessel, stays `lady d`).
 */
export function nameTokens(name: string, kind: NameKind): string[] {
  return parseName(name, kind).tokens;
}

/** A name's comparable words ({@link nameTokens}) and the titles, particles and legal forms removed. */
export interface ParsedName {
  tokens: string[];
  /** Removed words of three letters or more (none when the removal was undone). */
  dropped: string[];
}

export function parseName(name: string, kind: NameKind): ParsedName {
  const words = foldName(name).split(' ').filter(Boolean);
  // A name in Arabic script becomes consonants: عمر (Omar, Umar) is `mr`, like the title "Mr"; such a
  // vowelless word is a name, not a title or particle.
  const abjad = ARABIC_SCRIPT.test(name);
  const dropped: string[] = [];
  const kept = words.filter((w) => {
    let keep = true;
    if ((TITLES.has(w) || PARTICLES.has(w)) && !(abjad && !HAS_VOWEL.test(w))) keep = false;
    else if (kind !== 'person' && (LEGAL_FORMS.has(w) || isMisspeltLegalForm(w))) keep = false;
    else if (kind === 'vessel' && VESSEL_PREFIXES.has(w)) keep = false;
    if (!keep && w.length >= 3 && !dropped.includes(w)) dropped.push(w);
    return keep;
  });
  const tokens = kept.length > 0 ? kept : words;
  if (tokens.some((w) => w.length > 1)) return { tokens, dropped: kept.length > 0 ? dropped : [] };
  if (tokens.length > 1) return { tokens: [tokens.join('')], dropped: kept.length > 0 ? dropped : [] };
  return { tokens: words.some((w) => w.length > 1) ? words : [words.join('')], dropped: [] };
}
