import { parse } from 'csv-parse/sync';
import { describeParseError, ListFormatError } from '../errors';
import { normalizeCountries } from '../matching/countries';
import type { EntityType, ListEntry, ListInput, ListSnapshot, ListSource, ScreeningList } from '../model';
import { readInput } from './input';
import { makeSnapshot } from './snapshot';

/** The importable record shape of INTERNAL_LIST and ADVERSE_MEDIA files. */
export interface ListRecord {
  id: string;
  name: string;
  aliases?: string[] | string;
  entityType: EntityType;
  birthDate?: string;
  country?: string;
  /** Free text kept as remarks (e.g. why the party is on the internal list, or a media summary). */
  remarks?: string;
}

const ENTITY_TYPES = new Set<EntityType>(['INDIVIDUAL', 'ORGANIZATION', 'VESSEL', 'AIRCRAFT']);

function toEntry(
  rec: Partial<ListRecord>,
  list: ScreeningList,
  source: ListSource,
  where: string,
): ListEntry {
  const id = typeof rec.id === 'string' || typeof rec.id === 'number' ? String(rec.id).trim() : '';
  const name = typeof rec.name === 'string' ? rec.name.trim() : '';
  const entityType = (
    typeof rec.entityType === 'string' ? rec.entityType.trim().toUpperCase() : ''
  ) as EntityType;
  if (!id) throw new ListFormatError(source, `${where}: id is required`);
  if (!name) throw new ListFormatError(source, `${where}: name is required`);
  if (!ENTITY_TYPES.has(entityType))
    throw new ListFormatError(source, `${where}: entityType must be one of ${[...ENTITY_TYPES].join(', ')}`);
  const aliases = Array.isArray(rec.aliases)
    ? rec.aliases
    : typeof rec.aliases === 'string'
      ? rec.aliases.split(/[|;]/)
      : [];
  const names = [name, ...aliases.map((a) => String(a).trim())].filter(
    (n, i, all) => n !== '' && all.indexOf(n) === i,
  );
  const entry: ListEntry = { list, source, id, entityType, names };
  if (rec.birthDate && String(rec.birthDate).trim()) entry.birthDates = [String(rec.birthDate).trim()];
  if (rec.country && String(rec.country).trim()) entry.countries = normalizeCountries([String(rec.country)]);
  if (rec.remarks && String(rec.remarks).trim()) entry.remarks = String(rec.remarks).trim();
  return entry;
}

export interface RecordListOptions {
  list: ScreeningList;
  source: ListSource;
  /** Detected from the first character when omitted (`{` or `[` means JSON). */
  format?: 'csv' | 'jsonl';
}

/**
 * A list of {@link ListRecord}s as CSV (header `id,name,aliases,entityType,birthDate,country,remarks`,
 * aliases separated by `|`), JSON lines, or one JSON array.
 */
export function loadRecordList(input: ListInput, loadedAt: string, options: RecordListOptions): ListSnapshot {
  const { list, source } = options;
  const bytes = readInput(input, source);
  const textContent = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const first = textContent.trimStart()[0];
  const format = options.format ?? (first === '{' || first === '[' ? 'jsonl' : 'csv');
  let records: Array<Partial<ListRecord>>;
  if (format === 'csv') {
    try {
      records = parse(textContent, { columns: true, skip_empty_lines: true, trim: true }) as Array<
        Partial<ListRecord>
      >;
    } catch (err) {
      throw new ListFormatError(source, `invalid CSV: ${describeParseError(err)}`);
    }
  } else if (first === '[') {
    try {
      records = JSON.parse(textContent) as Array<Partial<ListRecord>>;
    } catch (err) {
      throw new ListFormatError(source, `invalid JSON: ${describeParseError(err)}`);
    }
  } else {
    records = textContent
      .split(/\r?\n/)
      .map((line, i) => {
        if (!line.trim()) return undefined;
        try {
          return JSON.parse(line) as Partial<ListRecord>;
        } catch {
          throw new ListFormatError(source, `line ${i + 1} is not JSON`);
        }
      })
      .filter((r): r is Partial<ListRecord> => r !== undefined);
  }
  const seen = new Set<string>();
  const entries = records.map((r, i) => {
    const e = toEntry(r, list, source, `record ${i + 1}`);
    if (seen.has(e.id)) throw new ListFormatError(source, `record ${i + 1}: duplicate id ${e.id}`);
    seen.add(e.id);
    return e;
  });
  return makeSnapshot(list, source, [bytes], entries, loadedAt);
}

/** The institution's own list (INTERNAL_LIST). */
export function loadInternalList(input: ListInput, loadedAt: string, format?: 'csv' | 'jsonl'): ListSnapshot {
  return loadRecordList(input, loadedAt, {
    list: 'INTERNAL_LIST',
    source: 'INTERNAL',
    ...(format ? { format } : {}),
  });
}
