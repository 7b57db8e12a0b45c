import { XMLParser } from 'fast-xml-parser';
import { describeParseError, ListFormatError } from '../errors';
import { normalizeCountries } from '../matching/countries';
import type { Identifier, ListEntry, ListInput, ListSnapshot } from '../model';
import { readInput } from './input';
import { makeSnapshot } from './snapshot';

type Node = Record<string, unknown>;

const REPEATED = new Set([
  'INDIVIDUAL',
  'ENTITY',
  'INDIVIDUAL_ALIAS',
  'ENTITY_ALIAS',
  'INDIVIDUAL_DATE_OF_BIRTH',
  'INDIVIDUAL_DOCUMENT',
  'INDIVIDUAL_ADDRESS',
  'ENTITY_ADDRESS',
  'VALUE',
]);

function text(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') {
    const t = String(value).replace(/\s+/g, ' ').trim();
    return t === '' ? undefined : t;
  }
  return undefined;
}

function nodes(value: unknown): Node[] {
  if (Array.isArray(value)) return value.filter((v): v is Node => v !== null && typeof v === 'object');
  return value !== null && typeof value === 'object' ? [value as Node] : [];
}

function values(value: unknown): string[] {
  return nodes(value)
    .flatMap((n) => (Array.isArray(n.VALUE) ? n.VALUE : [n.VALUE]).map(text))
    .filter((v): v is string => !!v);
}

function aliases(node: Node, tag: string): string[] {
  // "Low" quality aliases are the UN's own marker for weak, often generic names (e.g. "Abu Ahmad");
  // screening on them mostly yields false positives, so they are left out.
  return nodes(node[tag])
    .filter((a) => text(a.QUALITY)?.toLowerCase() !== 'low')
    .map((a) => text(a.ALIAS_NAME))
    .filter((a): a is string => !!a);
}

function birthDates(node: Node): string[] {
  const out = new Set<string>();
  for (const d of nodes(node.INDIVIDUAL_DATE_OF_BIRTH)) {
    const date = text(d.DATE);
    const year = text(d.YEAR);
    const from = Number(text(d.FROM_YEAR));
    const to = Number(text(d.TO_YEAR));
    if (date) out.add(date.slice(0, 10));
    if (year) out.add(year);
    if (from && to && to >= from && to - from <= 10) for (let y = from; y <= to; y += 1) out.add(String(y));
  }
  return [...out];
}

function documents(node: Node, reference: string | undefined): Identifier[] {
  const out: Identifier[] = [];
  if (reference) out.push({ type: 'UN_REFERENCE', value: reference });
  for (const d of nodes(node.INDIVIDUAL_DOCUMENT)) {
    const value = text(d.NUMBER);
    if (!value) continue;
    const kind = (text(d.TYPE_OF_DOCUMENT) ?? '').toLowerCase();
    const type = kind.includes('passport') ? 'PASSPORT' : kind.includes('national') ? 'NATIONAL_ID' : 'OTHER';
    out.push({ type, value });
  }
  return out;
}

function entry(node: Node, individual: boolean): ListEntry {
  const id = text(node.DATAID);
  if (!id) throw new ListFormatError('UN', 'entry without DATAID');
  const primary = [node.FIRST_NAME, node.SECOND_NAME, node.THIRD_NAME, node.FOURTH_NAME]
    .map(text)
    .filter(Boolean)
    .join(' ');
  if (!primary) throw new ListFormatError('UN', `entry ${id} has no name`);
  const names = [primary];
  const original = text(node.NAME_ORIGINAL_SCRIPT);
  for (const n of [
    ...aliases(node, individual ? 'INDIVIDUAL_ALIAS' : 'ENTITY_ALIAS'),
    ...(original ? [original] : []),
  ]) {
    if (!names.includes(n)) names.push(n);
  }
  const reference = text(node.REFERENCE_NUMBER);
  const result: ListEntry = {
    list: 'SANCTIONS',
    source: 'UN',
    id,
    entityType: individual ? 'INDIVIDUAL' : 'ORGANIZATION',
    names,
  };
  const dobs = individual ? birthDates(node) : [];
  if (dobs.length) result.birthDates = dobs;
  const countries = normalizeCountries(
    individual ? values(node.NATIONALITY) : nodes(node.ENTITY_ADDRESS).map((a) => text(a.COUNTRY)),
  );
  if (countries.length) result.countries = countries;
  const ids = documents(node, reference);
  if (ids.length) result.identifiers = ids;
  const program = text(node.UN_LIST_TYPE);
  if (program) result.programs = [program];
  const remarks = text(node.COMMENTS1);
  if (remarks) result.remarks = remarks;
  return result;
}

/** UN Security Council Consolidated List in the official XML schema (sc-sanctions.xsd). */
export function loadUnConsolidated(input: ListInput, loadedAt: string): ListSnapshot {
  const bytes = readInput(input, 'UN');
  const parser = new XMLParser({
    ignoreAttributes: true,
    parseTagValue: false,
    trimValues: true,
    isArray: (name) => REPEATED.has(name),
  });
  let doc: Node;
  try {
    doc = parser.parse(bytes) as Node;
  } catch (err) {
    throw new ListFormatError('UN', `invalid XML: ${describeParseError(err)}`);
  }
  const root = nodes(doc.CONSOLIDATED_LIST)[0];
  if (!root) throw new ListFormatError('UN', 'no CONSOLIDATED_LIST element');
  const individuals = nodes(nodes(root.INDIVIDUALS)[0]?.INDIVIDUAL).map((n) => entry(n, true));
  const entities = nodes(nodes(root.ENTITIES)[0]?.ENTITY).map((n) => entry(n, false));
  return makeSnapshot('SANCTIONS', 'UN', [bytes], [...individuals, ...entities], loadedAt);
}
