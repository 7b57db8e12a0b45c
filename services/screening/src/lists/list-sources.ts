import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  describeParseError,
  ListFormatError,
  SCREENING_LISTS,
  loadAdverseMedia,
  loadAllDemoLists,
  loadOfacConsolidated,
  loadOfacSdn,
  loadRecordList,
  loadSenzingJsonLines,
  loadUnConsolidated,
  type ListSnapshot,
  type ScreeningList,
} from '@crs/screening-core';

export type ListFormat =
  | 'OFAC_SDN_CSV'
  | 'OFAC_CONS_CSV'
  | 'UN_XML'
  | 'SENZING_JSONL'
  | 'RECORDS'
  | 'ADVERSE_MEDIA_DEMO'
  | 'DEMO_ALL';

/**
 * One entry of LISTS_CONFIG_FILE. `file` and `altFile` are paths (relative to the config file) or
 * http(s) URLs. DEMO_ALL loads every demo list of `dir` (default CRS_SHARED_DATA) in one go.
 */
export interface ListSourceSpec {
  format: ListFormat;
  list?: ScreeningList;
  source?: string;
  file?: string;
  altFile?: string;
  dir?: string;
  /** SENZING_JSONL: the OpenSanctions topic to keep (default role.pep). */
  topic?: string;
}

export interface ListsConfig {
  sources: ListSourceSpec[];
}

export class ListsConfigInvalidError extends Error {
  readonly code = 'LISTS_CONFIG_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'ListsConfigInvalidError';
  }
}

const FORMATS: readonly ListFormat[] = [
  'OFAC_SDN_CSV',
  'OFAC_CONS_CSV',
  'UN_XML',
  'SENZING_JSONL',
  'RECORDS',
  'ADVERSE_MEDIA_DEMO',
  'DEMO_ALL',
];
const NEEDS_FILE: readonly ListFormat[] = [
  'OFAC_SDN_CSV',
  'OFAC_CONS_CSV',
  'UN_XML',
  'SENZING_JSONL',
  'RECORDS',
];

/** Parses and checks the lists configuration; paths are resolved against `baseDir`. */
export function parseListsConfig(text: string, baseDir: string): ListsConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // Where, not what: the parser quotes the text around the error, which may be a URL with a key.
    throw new ListsConfigInvalidError(`lists config is not JSON: ${describeParseError(err)}`);
  }
  const sources = (parsed as { sources?: unknown })?.sources;
  if (!Array.isArray(sources) || sources.length === 0)
    throw new ListsConfigInvalidError('lists config needs a non-empty "sources" array');
  const resolve = (p: string | undefined) =>
    p === undefined || /^https?:\/\//.test(p) ? p : path.resolve(baseDir, p);
  return {
    sources: sources.map((raw, i) => {
      const s = raw as Partial<ListSourceSpec>;
      if (!s || typeof s !== 'object' || !FORMATS.includes(s.format as ListFormat)) {
        throw new ListsConfigInvalidError(`sources[${i}].format must be one of ${FORMATS.join(', ')}`);
      }
      if (NEEDS_FILE.includes(s.format!) && typeof s.file !== 'string')
        throw new ListsConfigInvalidError(`sources[${i}].file is required for ${s.format}`);
      if (
        s.format === 'RECORDS' &&
        (!s.list || !SCREENING_LISTS.includes(s.list) || typeof s.source !== 'string')
      ) {
        throw new ListsConfigInvalidError(
          `sources[${i}]: RECORDS needs list (one of ${SCREENING_LISTS.join(', ')}) and source`,
        );
      }
      const file = resolve(s.file);
      const altFile = resolve(s.altFile);
      const dir = resolve(s.dir);
      return {
        ...s,
        format: s.format!,
        ...(file ? { file } : {}),
        ...(altFile ? { altFile } : {}),
        ...(dir ? { dir } : {}),
      } as ListSourceSpec;
    }),
  };
}

/** The default when LISTS_CONFIG_FILE is unset: every demo list of the shared data folder. */
export function demoListsConfig(sharedDataDir: string): ListsConfig {
  return { sources: [{ format: 'DEMO_ALL', dir: sharedDataDir }] };
}

async function fetchBytes(location: string, label: string): Promise<Buffer> {
  try {
    if (/^https?:\/\//.test(location)) {
      // Credentials in the URL (https://user:key@host/...) go as basic authentication: fetch refuses them inline.
      const url = new URL(location);
      const headers: Record<string, string> = {};
      if (url.username || url.password) {
        const user = decodeURIComponent(url.username);
        headers.authorization = `Basic ${Buffer.from(`${user}:${decodeURIComponent(url.password)}`).toString('base64')}`;
        url.username = '';
        url.password = '';
      }
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    }
    return await readFile(location);
  } catch (err) {
    // The reason, with the location as printable as above (fetch quotes the URL it was given).
    const cause = (err as { cause?: { code?: unknown } }).cause?.code;
    const reason = `${(err as Error).message}${typeof cause === 'string' ? ` (${cause})` : ''}`
      .split(location)
      .join(printableLocation(location));
    throw new ListFormatError(label, `cannot read ${printableLocation(location)}: ${reason}`);
  }
}

/**
 * A list location as it may be logged: a URL without its credentials, query and fragment (a publisher's
 * API key often travels in one of them); a file path as it is.
 */
export function printableLocation(location: string): string {
  if (!/^https?:\/\//.test(location)) return location;
  try {
    const url = new URL(location);
    return `${url.protocol}//${url.host}${url.pathname}${url.search ? '?…' : ''}`;
  } catch {
    return '(unparseable URL)';
  }
}

/** A stable name for a config entry, for logs and metrics (never a file's content). */
export function specLabel(spec: ListSourceSpec): string {
  return spec.format === 'DEMO_ALL'
    ? 'DEMO_ALL'
    : `${spec.list ?? ''}${spec.list ? '/' : ''}${spec.source ?? spec.format}`;
}

/** Loads the snapshots one config entry yields (DEMO_ALL: several). Throws ListFormatError on bad input. */
export async function loadSource(
  spec: ListSourceSpec,
  sharedDataDir: string,
  loadedAt: string,
): Promise<ListSnapshot[]> {
  const label = specLabel(spec);
  const file = async () => fetchBytes(spec.file!, label);
  switch (spec.format) {
    case 'DEMO_ALL':
      return loadAllDemoLists(spec.dir ?? sharedDataDir, loadedAt);
    case 'OFAC_SDN_CSV':
      return [
        loadOfacSdn(
          { primary: await file(), ...(spec.altFile ? { alt: await fetchBytes(spec.altFile, label) } : {}) },
          loadedAt,
        ),
      ];
    case 'OFAC_CONS_CSV':
      return [
        loadOfacConsolidated(
          { primary: await file(), ...(spec.altFile ? { alt: await fetchBytes(spec.altFile, label) } : {}) },
          loadedAt,
        ),
      ];
    case 'UN_XML':
      return [loadUnConsolidated(await file(), loadedAt)];
    case 'SENZING_JSONL':
      return [
        loadSenzingJsonLines(await file(), loadedAt, {
          ...(spec.list ? { list: spec.list } : {}),
          ...(spec.source ? { source: spec.source } : {}),
          topic: spec.topic ?? 'role.pep',
        }),
      ];
    case 'RECORDS':
      return [loadRecordList(await file(), loadedAt, { list: spec.list!, source: spec.source! })];
    case 'ADVERSE_MEDIA_DEMO':
      return [loadAdverseMedia(loadedAt, spec.file ? await file() : undefined)];
    default: {
      const unreachable: never = spec.format;
      return unreachable;
    }
  }
}
