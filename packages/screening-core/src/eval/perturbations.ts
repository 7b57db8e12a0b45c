import type { ListEntry, ListSnapshot } from '../model';
import { foldName, PARTICLES, TITLES } from '../matching/normalize';
import {
  accents,
  casePunctuation,
  dropMiddle,
  editWord,
  initials,
  isWord,
  legalForm,
  nameParts,
  pick,
  reorder,
  seededRandom,
  typo,
  typos,
  words,
  type Random,
} from './name-edits';
import { transliterate, type Transliterators } from './transliteration';

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

const LATIN = /^[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f .,'()/&-]*$/;

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
