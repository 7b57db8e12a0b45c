import hanja from 'hanja';
import { toRomaji } from 'wanakana';
import { foldName } from './normalize';
import { koreanListSpelling } from './romanize';

/**
 * Readings of a name written in Chinese characters (Han) or Hangul: other Latin spellings that the same
 * name has on a list. A Han name is read three ways, because the characters alone do not say whose name it
 * is: as Mandarin (pinyin, what {@link foldName} gives), as Korean (Sino-Korean readings: 金正恩 -> 김정은
 * -> "kim jong un") and, when a Japanese dictionary is loaded, as Japanese (山田太郎 -> ヤマダ タロウ ->
 * "yamada taro"). A Hangul name gets, besides its Revised Romanization, the spelling sanctions lists use
 * (McCune-Reischauer without diacritics, common surname spellings: 박지성 -> "park ji song").
 *
 * A screening screens the name and each reading and keeps every entry's best score.
 */
export interface NameReading {
  system: 'korean' | 'japanese';
  /** The reading, in Latin letters (words separated by spaces). */
  name: string;
}

export type NameReader = (name: string) => NameReading[];

/** The part of a kuromoji tokenizer a reading needs. */
export interface JapaneseTokenizer {
  tokenize(text: string): ReadonlyArray<{
    surface_form: string;
    pos_detail_2: string;
    reading?: string;
  }>;
}

const HAN_CHARS = '\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff';
const HANGUL_CHARS = '\uac00-\ud7a3';
const HAN = new RegExp(`[${HAN_CHARS}]`);
const HANGUL = new RegExp(`[${HANGUL_CHARS}]`);
/** Any character a reading may start from: Han, Hangul. */
const READABLE = new RegExp(`[${HAN_CHARS}${HANGUL_CHARS}]`);
const CONTROL = /\p{Cc}/gu;
/**
 * Names longer than this get no readings. A name in these scripts has a handful of characters (a Korean
 * one 2 to 4, with aliases written together a few dozen); a request may carry thousands, which would only
 * multiply the work of one screening.
 */
export const MAX_READABLE_LENGTH = 64;

/**
 * Han characters read as Korean. The reading of 金 as a surname is 김 (gim), not 금 (geum, "gold"): a word
 * starting with it is a name.
 */
function koreanReading(text: string): string {
  return hanja.translate(text.replace(/(^|\s)金/g, '$1김'), 'SUBSTITUTION');
}

/** Long vowels as passports and lists write them: "tarou" -> "taro", "yuuki" -> "yuki". */
function foldLongVowels(word: string): string {
  return word.replace(/ou/g, 'o').replace(/uu/g, 'u').replace(/oo/g, 'o');
}

/**
 * Han characters read as Japanese, word by word from the dictionary; none when a word has no reading or
 * when no word is a personal name (a Chinese name would otherwise get a made-up Japanese reading).
 */
function japaneseReading(tokenizer: JapaneseTokenizer, text: string): string | undefined {
  const words: string[] = [];
  let personal = false;
  let tokens: ReturnType<JapaneseTokenizer['tokenize']>;
  try {
    // Control characters out: kuromoji's lattice throws on some (a NUL, found by a hostile-input test).
    tokens = tokenizer.tokenize(text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim());
  } catch {
    return undefined;
  }
  for (const token of tokens) {
    if (token.surface_form.trim() === '') continue;
    if (!token.reading || token.reading === '*') return undefined;
    if (token.pos_detail_2 === '人名') personal = true;
    words.push(foldLongVowels(toRomaji(token.reading)));
  }
  return personal && words.length > 0 ? words.join(' ') : undefined;
}

/**
 * The reader: Korean readings always, Japanese ones with a tokenizer (loadJapaneseTokenizer, japanese-tokenizer.ts).
 * Names without Han or Hangul have no readings, at the cost of one regular-expression test.
 */
export function createNameReader(japanese?: JapaneseTokenizer): NameReader {
  return (name) => {
    if (name.length > MAX_READABLE_LENGTH || !READABLE.test(name)) return [];
    const out: NameReading[] = [];
    // A reading that folds like the name as written would only repeat its screening.
    const seen = new Set<string>([foldName(name)]);
    const add = (system: NameReading['system'], reading: string | undefined) => {
      const key = reading === undefined ? '' : foldName(reading);
      if (!key || seen.has(key)) return;
      seen.add(key);
      out.push({ system, name: key });
    };
    if (HAN.test(name)) {
      const korean = koreanReading(name);
      // The list spelling only: Korean names on lists are not in the Revised Romanization.
      if (HANGUL.test(korean)) add('korean', koreanListSpelling(korean));
      if (japanese) add('japanese', japaneseReading(japanese, name));
    } else {
      add('korean', koreanListSpelling(name));
    }
    return out;
  };
}

/** The reader without a Japanese dictionary: what an index uses unless it is given one. */
export const KOREAN_READER: NameReader = createNameReader();
