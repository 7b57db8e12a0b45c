import { romanize } from '@romanize/korean';
import { toRomaji } from 'wanakana';

/** Romanisers of the scripts a name is folded from: Hangul (two spellings) and kana. */

const HANGUL_RUN = /[\uac00-\ud7a3]+/g;
const KANA_RUN = /[\u3040-\u30ff]+/g;

/**
 * Surnames whose usual Latin spelling is not their Revised Romanization with the vowel simplification
 * below (RR "gim", "i", "bak" ... are rare on lists and in passports).
 */
const KOREAN_SURNAMES: Readonly<Record<string, string>> = {
  김: 'kim',
  이: 'lee',
  박: 'park',
  최: 'choi',
  강: 'kang',
  조: 'cho',
  윤: 'yoon',
  임: 'lim',
  신: 'shin',
  권: 'kwon',
  안: 'ahn',
  유: 'yoo',
  노: 'roh',
  구: 'koo',
  우: 'woo',
  주: 'joo',
  문: 'moon',
  곽: 'kwak',
  고: 'ko',
  공: 'kong',
  길: 'kil',
  기: 'ki',
  갈: 'kal',
  국: 'kook',
  경: 'kyung',
  계: 'kye',
  표: 'pyo',
  변: 'byun',
  선: 'sun',
  석: 'suk',
  엄: 'um',
  은: 'eun',
  명: 'myung',
};

/** Revised Romanization of one syllable, in the spelling of names on lists: "eo" -> "o", "eu" -> "u". */
function popularSyllable(syllable: string): string {
  return romanize(syllable).replace(/eo/g, 'o').replace(/eu/g, 'u');
}

/**
 * A Hangul name in the spelling of lists: one word per syllable (the given-name syllables are written
 * together or hyphenated on lists; the matcher's compounds join them again), surname from the table.
 */
export function koreanListSpelling(text: string): string {
  return text
    .replace(HANGUL_RUN, (run) =>
      [...run]
        .map((s, i) =>
          i === 0 && run.length >= 2 && run.length <= 4
            ? (KOREAN_SURNAMES[s] ?? popularSyllable(s))
            : popularSyllable(s),
        )
        .join(' '),
    )
    .replace(/\s+/g, ' ')
    .trim();
}

/** Revised Romanization of a Hangul name, one word per syllable ("김정은" -> "gim jeong eun"). */
export function koreanRevised(text: string): string {
  return text.replace(HANGUL_RUN, (run) => ` ${[...run].map((s) => romanize(s)).join(' ')} `);
}

/** Kana in Hepburn ("イチロウ" -> "ichirou"). */
export function romanizeKana(text: string): string {
  return text.replace(KANA_RUN, (run) => ` ${toRomaji(run)} `);
}
