import { ErrorCodes, FieldProblems } from './error-codes';
import { fieldCode, formatPath, type FieldError } from './field-errors';
import { SchemaIds, schemaDocuments } from './generated/schemas.generated';

export type ClassifierName =
  | 'country'
  | 'currency'
  | 'addressType'
  | 'paymentPurposeType'
  | 'sourceOfWealth'
  | 'riskManagementCategory';

export interface ClassifierRef {
  /** Field path with list indexes, e.g. `listRelatedEntity[0].listAddress[1].country`. */
  path: string;
  classifier: ClassifierName;
  code: string;
}

const UNKNOWN_CODE: Readonly<Record<ClassifierName, string>> = {
  country: ErrorCodes.UnknownCountry,
  currency: ErrorCodes.UnknownCurrency,
  addressType: ErrorCodes.UnknownAddressType,
  paymentPurposeType: ErrorCodes.UnknownPaymentPurposeType,
  sourceOfWealth: ErrorCodes.UnknownSourceOfWealth,
  riskManagementCategory: ErrorCodes.UnknownRiskManagementCategory,
};

type Schema = Readonly<Record<string, unknown>>;
type Segment = string | number;
/** A classifier-backed field: its location in a record ('*' stands for any list index) and its classifier. */
type Template = { readonly segments: readonly Segment[]; readonly classifier: ClassifierName };
const ANY_INDEX = -1;

const documentsById = new Map<string, Schema>(
  schemaDocuments.map((document) => [String(document.$id), document]),
);

function resolveRef(ref: string, base: string): { schema: Schema; base: string } {
  const url = new URL(ref, base);
  const fragment = decodeURIComponent(url.hash.slice(1));
  url.hash = '';
  const documentId = url.toString();
  let node: unknown = documentsById.get(documentId);
  for (const part of fragment.split('/').filter((p) => p !== '')) node = (node as Schema | undefined)?.[part];
  if (node === undefined || node === null || typeof node !== 'object')
    throw new Error(`Unresolvable $ref ${ref} from ${base}`);
  return { schema: node as Schema, base: documentId };
}

/**
 * Walks a schema and lists every field marked with `x-classifier` (the schemas are the only place that
 * says which fields are classifier-backed). Conditional branches are skipped: they only forbid fields.
 */
function templatesOf(
  schema: Schema,
  base: string,
  prefix: Segment[],
  seen: Set<Schema>,
  out: Template[],
): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const classifier = schema['x-classifier'];
  if (typeof classifier === 'string')
    out.push({ segments: prefix, classifier: classifier as ClassifierName });
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, base);
    templatesOf(target.schema, target.base, prefix, seen, out);
  }
  for (const member of (schema.allOf as Schema[] | undefined) ?? [])
    templatesOf(member, base, prefix, seen, out);
  const properties = schema.properties as Record<string, Schema | boolean> | undefined;
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (typeof property === 'object') templatesOf(property, base, [...prefix, name], seen, out);
  }
  if (typeof schema.items === 'object')
    templatesOf(schema.items as Schema, base, [...prefix, ANY_INDEX], seen, out);
  seen.delete(schema);
}

const customerId = SchemaIds['http/customer.v1'];
const TEMPLATES: readonly Template[] = (() => {
  const out: Template[] = [];
  templatesOf(documentsById.get(customerId) as Schema, customerId, [], new Set(), out);
  const unique = new Map(out.map((template) => [`${template.segments.join('/')}`, template]));
  return [...unique.values()];
})();

function collect(
  node: unknown,
  template: Template,
  depth: number,
  at: Segment[],
  out: ClassifierRef[],
): void {
  if (depth === template.segments.length) {
    if (typeof node === 'string')
      out.push({ path: formatPath(at), classifier: template.classifier, code: node });
    return;
  }
  // `at` is one stack per walk, pushed and popped (every customer of a batch walks every template).
  const segment = template.segments[depth] as Segment;
  if (segment === ANY_INDEX) {
    if (!Array.isArray(node)) return;
    for (let index = 0; index < node.length; index++) {
      at.push(index);
      collect(node[index], template, depth + 1, at, out);
      at.pop();
    }
  } else if (
    node !== null &&
    typeof node === 'object' &&
    !Array.isArray(node) &&
    Object.hasOwn(node, segment)
  ) {
    at.push(segment);
    collect((node as Record<string, unknown>)[segment], template, depth + 1, at, out);
    at.pop();
  }
}

/**
 * Every classifier-backed value of a validated customer (full or simplified) record, so that the caller
 * can check each against the classifiers of the record's business unit.
 */
export function collectClassifierRefs(record: unknown): ClassifierRef[] {
  const out: ClassifierRef[] = [];
  for (const template of TEMPLATES) collect(record, template, 0, [], out);
  return out;
}

/** The field error for a classifier value that the business unit does not know (K001..K006). */
export function unknownClassifierError(ref: ClassifierRef): FieldError {
  const names = ref.path
    .replace(/\[\d+\]/g, '')
    .split('.')
    .filter((name) => name !== '');
  return {
    path: ref.path,
    code: fieldCode(UNKNOWN_CODE[ref.classifier], names, FieldProblems.UnknownCode),
    message: `${ref.path} is not a known ${ref.classifier} code for this business unit`,
  };
}
