import { foldAccents } from './fold';

// Publishers write countries as ISO codes ("af"), short names ("Iran") or UN long forms
// ("Iran (Islamic Republic of)"). ICU already knows every English short name, so only the
// long forms and demonyms seen in the lists are added by hand.
const EXTRA: Record<string, string> = {
  'russian federation': 'RU',
  'syrian arab republic': 'SY',
  "democratic people's republic of korea": 'KP',
  dprk: 'KP',
  'north korea': 'KP',
  'republic of korea': 'KR',
  'south korea': 'KR',
  'united kingdom of great britain and northern ireland': 'GB',
  'united kingdom': 'GB',
  'great britain': 'GB',
  'united states of america': 'US',
  usa: 'US',
  'viet nam': 'VN',
  "lao people's democratic republic": 'LA',
  'democratic republic of the congo': 'CD',
  congo: 'CG',
  'republic of the congo': 'CG',
  'united republic of tanzania': 'TZ',
  turkey: 'TR',
  turkiye: 'TR',
  'republic of moldova': 'MD',
  'state of palestine': 'PS',
  palestinian: 'PS',
  'palestinian territories': 'PS',
  'west bank': 'PS',
  gaza: 'PS',
  burma: 'MM',
  'ivory coast': 'CI',
  'czech republic': 'CZ',
  macedonia: 'MK',
  swaziland: 'SZ',
  'cape verde': 'CV',
  'east timor': 'TL',
  vatican: 'VA',
  'holy see': 'VA',
  kosovo: 'XK',
  crimea: 'UA',
  'region: crimea': 'UA',
  iranian: 'IR',
  iraqi: 'IQ',
  afghan: 'AF',
  syrian: 'SY',
  russian: 'RU',
  saudi: 'SA',
  yemeni: 'YE',
  somali: 'SO',
  sudanese: 'SD',
  libyan: 'LY',
  lebanese: 'LB',
  pakistani: 'PK',
  egyptian: 'EG',
  jordanian: 'JO',
  kuwaiti: 'KW',
  chinese: 'CN',
  cuban: 'CU',
  venezuelan: 'VE',
  belarusian: 'BY',
  ukrainian: 'UA',
  korean: 'KP',
  american: 'US',
  british: 'GB',
  german: 'DE',
  french: 'FR',
  indian: 'IN',
};

// Retired or non-country codes that ICU still names ("SU" is shown as "Russia", "DD" as "Germany").
const RETIRED = new Set([
  'SU',
  'DD',
  'YU',
  'ZR',
  'TP',
  'BU',
  'CS',
  'AN',
  'FX',
  'NT',
  'QO',
  'EU',
  'EZ',
  'UN',
  'XA',
  'XB',
  'ZZ',
]);

function key(text: string): string {
  return foldAccents(text)
    .toLowerCase()
    .replace(/\(.*?\)/g, ' ')
    .replace(/^the\s+/, '')
    .replace(/[^a-z' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const byName: Map<string, string> = (() => {
  const map = new Map<string, string>();
  const display = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const A = 'A'.charCodeAt(0);
  for (let i = 0; i < 26; i += 1) {
    for (let j = 0; j < 26; j += 1) {
      const code = String.fromCharCode(A + i, A + j);
      let name: string | undefined;
      try {
        name = display.of(code);
      } catch {
        name = undefined;
      }
      if (name === undefined || name === code || RETIRED.has(code)) continue;
      const k = key(name);
      if (!map.has(k)) map.set(k, code);
    }
  }
  for (const [name, code] of Object.entries(EXTRA)) map.set(key(name), code);
  return map;
})();

/**
 * ISO 3166-1 alpha-2 code for a country written as a code, a name or a demonym;
 * undefined when it cannot be resolved.
 */
export function normalizeCountry(text: string | undefined | null): string | undefined {
  if (!text) return undefined;
  const trimmed = text.trim();
  if (/^[A-Za-z]{2}$/.test(trimmed)) return trimmed.toUpperCase();
  const k = key(trimmed);
  if (k === '') return undefined;
  const direct = byName.get(k);
  if (direct) return direct;
  // "Iran (Islamic Republic of)" became "iran"; "Republic of Iraq" and similar long forms:
  const tail = k.replace(/^(republic|kingdom|state|federation|islamic republic|federal republic) of /, '');
  return byName.get(tail);
}

/** Resolves every country it can and keeps the rest as published, de-duplicated. */
export function normalizeCountries(texts: Iterable<string | undefined | null>): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    if (!t || !t.trim()) continue;
    out.add(normalizeCountry(t) ?? t.trim());
  }
  return [...out];
}
