import { ListFormatError } from '../errors';
import { normalizeCountries } from '../matching/countries';
import type {
  EntityType,
  Identifier,
  ListEntry,
  ListInput,
  ListSnapshot,
  ListSource,
  ScreeningList,
} from '../model';
import { readInput } from './input';
import { makeSnapshot } from './snapshot';

interface SenzingRecord {
  RECORD_ID?: string;
  RECORD_TYPE?: string;
  NAMES?: Array<{
    NAME_TYPE?: string;
    NAME_FULL?: string;
    NAME_ORG?: string;
    NAME_FIRST?: string;
    NAME_LAST?: string;
  }>;
  DATES?: Array<{ DATE_OF_BIRTH?: string }>;
  COUNTRIES?: Array<{ NATIONALITY?: string; CITIZENSHIP?: string }>;
  IDENTIFIERS?: Array<{ OTHER_ID_TYPE?: string; OTHER_ID_NUMBER?: string }>;
  RISKS?: Array<{ TOPIC?: string }>;
}

export interface SenzingOptions {
  list?: ScreeningList;
  source?: ListSource;
  /** Keep only records with this RISKS[].TOPIC (default `role.pep`); null keeps all. */
  topic?: string | null;
}

function recordType(value: string | undefined): EntityType {
  if (value === 'ORGANIZATION') return 'ORGANIZATION';
  if (value === 'VESSEL') return 'VESSEL';
  if (value === 'AIRCRAFT') return 'AIRCRAFT';
  return 'INDIVIDUAL';
}

/** OpenSanctions exports in the Senzing entity specification (JSON lines), e.g. `us_congress_senzing.json`. */
export function loadSenzingJsonLines(
  input: ListInput,
  loadedAt: string,
  options: SenzingOptions = {},
): ListSnapshot {
  const list = options.list ?? 'PEP';
  const source = options.source ?? 'US_CONGRESS_PEP';
  const topic = options.topic === undefined ? 'role.pep' : options.topic;
  const bytes = readInput(input, source);
  const entries: ListEntry[] = [];
  const lines = bytes.toString('utf8').split(/\r?\n/);
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let rec: SenzingRecord;
    try {
      rec = JSON.parse(line) as SenzingRecord;
    } catch {
      throw new ListFormatError(source, `line ${i + 1} is not JSON`);
    }
    if (topic !== null && !(rec.RISKS ?? []).some((r) => r.TOPIC === topic)) return;
    const names = (rec.NAMES ?? [])
      .slice()
      .sort((a, b) => Number(b.NAME_TYPE === 'PRIMARY') - Number(a.NAME_TYPE === 'PRIMARY'))
      .map((n) => n.NAME_FULL ?? n.NAME_ORG ?? [n.NAME_FIRST, n.NAME_LAST].filter(Boolean).join(' '))
      .map((n) => n.trim())
      .filter((n, j, all) => n !== '' && all.indexOf(n) === j);
    if (!rec.RECORD_ID || names.length === 0) return;
    const entry: ListEntry = {
      list,
      source,
      id: rec.RECORD_ID,
      entityType: recordType(rec.RECORD_TYPE),
      names,
    };
    const dobs = (rec.DATES ?? []).map((d) => d.DATE_OF_BIRTH).filter((d): d is string => !!d);
    if (dobs.length) entry.birthDates = dobs;
    const countries = normalizeCountries(
      (rec.COUNTRIES ?? []).flatMap((c) => [c.NATIONALITY, c.CITIZENSHIP]),
    );
    if (countries.length) entry.countries = countries;
    const ids: Identifier[] = (rec.IDENTIFIERS ?? [])
      .filter((x) => x.OTHER_ID_NUMBER && x.OTHER_ID_TYPE)
      .map((x) => ({ type: x.OTHER_ID_TYPE!, value: x.OTHER_ID_NUMBER! }));
    if (ids.length) entry.identifiers = ids;
    entries.push(entry);
  });
  return makeSnapshot(list, source, [bytes], entries, loadedAt);
}
