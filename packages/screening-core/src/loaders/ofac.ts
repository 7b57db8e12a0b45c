import { parse } from 'csv-parse/sync';
import { describeParseError, ListFormatError } from '../errors';
import { normalizeCountries } from '../matching/countries';
import type { EntityType, Identifier, ListEntry, ListInput, ListSnapshot } from '../model';
import { readInput } from './input';
import { makeSnapshot } from './snapshot';

const MONTHS: Record<string, string> = {
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
};

const ID_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/Passport ([A-Z0-9][A-Z0-9-]*)/g, 'PASSPORT'],
  [/National ID No\. ([A-Z0-9][A-Z0-9-]*)/g, 'NATIONAL_ID'],
  [/Tax ID No\. ([A-Z0-9][A-Z0-9-]*)/g, 'TAX_ID'],
  [/Registration Number ([A-Z0-9][A-Z0-9-]*)/g, 'REGISTRATION'],
  [/IMO (\d{7})/g, 'IMO'],
  [/Legal Entity Number ([A-Z0-9]{20})/g, 'LEI'],
  [/SWIFT\/BIC ([A-Z0-9]{8,11})/g, 'SWIFT_BIC'],
  [/Cedula No\. ([A-Z0-9][A-Z0-9-]*)/g, 'NATIONAL_ID'],
  [/Identification Number ([A-Z0-9][A-Z0-9-]*)/g, 'NATIONAL_ID'],
];

/** `-0-` is OFAC's NULL marker. */
function field(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  return t === '' || t === '-0-' ? undefined : t;
}

function ofacDates(text: string): string[] {
  const out: string[] = [];
  const re = /(?:(\d{1,2}) )?(?:(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* )?(\d{4})/gi;
  for (const m of text.matchAll(re)) {
    const [, day, month, year] = m;
    const mm = month ? MONTHS[month.slice(0, 3).toLowerCase()] : undefined;
    if (mm && day) out.push(`${year}-${mm}-${day.padStart(2, '0')}`);
    else if (mm) out.push(`${year}-${mm}`);
    else out.push(year!);
  }
  // "DOB 1961 to 1963" lists the range ends; fill the years between so a year match works.
  if (/\bto\b/.test(text) && out.length === 2) {
    const from = Number(out[0]!.slice(0, 4));
    const to = Number(out[1]!.slice(0, 4));
    for (let y = from + 1; y < to && y - from < 10; y += 1) out.push(String(y));
  }
  return out;
}

/** Dates of birth, nationalities and identifiers that OFAC writes into the free-text remarks. */
export function parseOfacRemarks(
  remarks: string | undefined,
): Pick<ListEntry, 'birthDates' | 'countries' | 'identifiers'> {
  if (!remarks) return {};
  const birthDates = new Set<string>();
  for (const m of remarks.matchAll(/DOB ([^;]+)/g)) for (const d of ofacDates(m[1]!)) birthDates.add(d);
  const countries = normalizeCountries(
    [...remarks.matchAll(/(?:nationality|citizen) ([A-Za-z' ,-]+?)(?:[;.(]|$)/g)].map((m) => m[1]),
  );
  const identifiers: Identifier[] = [];
  for (const [re, type] of ID_PATTERNS) {
    for (const m of remarks.matchAll(re)) identifiers.push({ type, value: m[1]! });
  }
  const out: Pick<ListEntry, 'birthDates' | 'countries' | 'identifiers'> = {};
  if (birthDates.size) out.birthDates = [...birthDates];
  if (countries.length) out.countries = countries;
  if (identifiers.length) out.identifiers = identifiers;
  return out;
}

function ofacType(value: string | undefined): EntityType {
  switch (value?.toLowerCase()) {
    case 'individual':
      return 'INDIVIDUAL';
    case 'vessel':
      return 'VESSEL';
    case 'aircraft':
      return 'AIRCRAFT';
    default:
      return 'ORGANIZATION';
  }
}

function parseOfacCsv(bytes: Buffer, source: string, minColumns: number): string[][] {
  let end = bytes.length;
  // The files end with a DOS end-of-file byte (0x1A) that is not part of any record.
  while (end > 0 && (bytes[end - 1] === 0x1a || bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end -= 1;
  let rows: string[][];
  try {
    rows = parse(bytes.subarray(0, end), {
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      bom: true,
    }) as string[][];
  } catch (err) {
    throw new ListFormatError(source, `not an OFAC CSV file: ${describeParseError(err)}`);
  }
  const bad = rows.findIndex((r) => r.length < minColumns || !/^\d+$/.test((r[0] ?? '').trim()));
  // Where, not what: the row holds names.
  if (bad >= 0)
    throw new ListFormatError(
      source,
      `unexpected row ${bad + 1}: ${rows[bad]!.length} columns (at least ${minColumns}), first one ${/^\d+$/.test((rows[bad]![0] ?? '').trim()) ? 'numeric' : 'not an entry number'}`,
    );
  return rows;
}

export interface OfacInputs {
  /** `sdn.csv` or `cons_prim.csv` */
  primary: ListInput;
  /** `alt.csv` or `cons_alt.csv` */
  alt?: ListInput;
}

export interface OfacLoadStats {
  aliasRows: number;
  aliasRowsJoined: number;
  aliasRowsIgnored: number;
}

function loadOfac(
  source: 'OFAC_SDN' | 'OFAC_CONS',
  inputs: OfacInputs,
  loadedAt: string,
): { snapshot: ListSnapshot; stats: OfacLoadStats } {
  const primary = readInput(inputs.primary, source);
  const alt = inputs.alt === undefined ? undefined : readInput(inputs.alt, source);
  const entries = new Map<string, ListEntry>();
  for (const row of parseOfacCsv(primary, source, 12)) {
    const id = row[0]!.trim();
    const name = field(row[1]);
    if (!name) throw new ListFormatError(source, `entry ${id} has no name`);
    const entityType = ofacType(field(row[2]));
    const remarks = field(row[11]);
    const entry: ListEntry = {
      list: 'SANCTIONS',
      source,
      id,
      entityType,
      names: [name],
      ...parseOfacRemarks(remarks),
    };
    const program = field(row[3]);
    if (program)
      entry.programs = program
        .replace(/^\[|\]$/g, '')
        .split(/\]\s*\[/)
        .map((p) => p.trim());
    const flag = field(row[9]);
    if (flag) entry.countries = normalizeCountries([...(entry.countries ?? []), flag]);
    if (remarks) entry.remarks = remarks;
    entries.set(id, entry);
  }
  const stats: OfacLoadStats = { aliasRows: 0, aliasRowsJoined: 0, aliasRowsIgnored: 0 };
  if (alt) {
    for (const row of parseOfacCsv(alt, source, 4)) {
      stats.aliasRows += 1;
      const entry = entries.get(row[0]!.trim());
      const name = field(row[3]);
      // alt.csv may be newer than the primary file: aliases of entries it does not know are dropped.
      if (!entry || !name) {
        stats.aliasRowsIgnored += 1;
        continue;
      }
      stats.aliasRowsJoined += 1;
      if (!entry.names.includes(name)) entry.names.push(name);
    }
  }
  const buffers = alt ? [primary, alt] : [primary];
  return { snapshot: makeSnapshot('SANCTIONS', source, buffers, [...entries.values()], loadedAt), stats };
}

/** OFAC Specially Designated Nationals: `sdn.csv` joined with `alt.csv` on ent_num. */
export function loadOfacSdn(inputs: OfacInputs, loadedAt: string): ListSnapshot {
  return loadOfac('OFAC_SDN', inputs, loadedAt).snapshot;
}

/** Same as {@link loadOfacSdn} plus how many alias rows were joined or ignored. */
export function loadOfacSdnWithStats(
  inputs: OfacInputs,
  loadedAt: string,
): { snapshot: ListSnapshot; stats: OfacLoadStats } {
  return loadOfac('OFAC_SDN', inputs, loadedAt);
}

/** OFAC non-SDN consolidated list: `cons_prim.csv` joined with `cons_alt.csv`. */
export function loadOfacConsolidated(inputs: OfacInputs, loadedAt: string): ListSnapshot {
  return loadOfac('OFAC_CONS', inputs, loadedAt).snapshot;
}
