import type { ErrorObject } from 'ajv';
import { ErrorCodes, FieldProblems, type FieldProblem } from './error-codes';
import type { FieldError } from './generated/http/field-error.v1';

export type { FieldError };

/** Strings in the schemas carry this pattern only to forbid NUL characters. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

const MAX_KEY_LENGTH = 64;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Why a conditionally required field is required; the schema rules behind these live in schemas/http. */
const REQUIRED_REASONS: Readonly<Record<string, string>> = {
  firstName: ' for entityType INDIVIDUAL',
  lastName: ' for entityType INDIVIDUAL',
  title: ' for entityType ORGANIZATION',
  closingDate: ' when customerStatus is CLOSED',
  riskLevel: ' when sourceOfRiskLevel is IMPORT',
  customerStatus: ' when sourceOfRiskLevel is IMPORT',
};

/** Lower wins when several problems are reported for the same field: the most specific one is kept. */
const PRIORITY: Readonly<Record<FieldProblem, number>> = {
  REQUIRED: 0,
  UNKNOWN_FIELD: 0,
  NOT_ALLOWED_FOR_INDIVIDUAL: 0,
  NOT_ALLOWED_FOR_ORGANIZATION: 0,
  NOT_ALLOWED_UNLESS_CLOSED: 0,
  NOT_ALLOWED_WITH_EVALUATE: 0,
  NOT_ALLOWED_IN_BATCH: 0,
  NOT_ALLOWED: 0,
  INVALID_TYPE: 1,
  INVALID_VALUE: 2,
  INVALID_DATE: 3,
  INVALID_FORMAT: 3,
  INVALID_NUMBER: 3,
  FORBIDDEN_CHARACTER: 3,
  TOO_LONG: 4,
  TOO_SHORT: 4,
  OUT_OF_RANGE: 4,
  TOO_MANY_ITEMS: 4,
  TOO_FEW_ITEMS: 4,
  DUPLICATE_ITEM: 5,
  UNKNOWN_CODE: 5,
};

type Segment = string | number;

/** A field location: segments for the path (with indexes) and the field names alone (for the code). */
export interface FieldLocation {
  readonly segments: readonly Segment[];
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Turns a JSON pointer into segments, telling list indexes from object keys by looking at the data. */
function segmentsOf(pointer: string, data: unknown): Segment[] {
  const segments: Segment[] = [];
  let node: unknown = data;
  for (const part of decodePointer(pointer)) {
    if (Array.isArray(node)) {
      const index = Number(part);
      segments.push(index);
      node = node[index];
    } else {
      segments.push(part);
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    }
  }
  return segments;
}

function valueAt(segments: readonly Segment[], data: unknown): unknown {
  let node = data;
  for (const segment of segments) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

function formatKey(key: string): string {
  const shown = key.length > MAX_KEY_LENGTH ? `${key.slice(0, MAX_KEY_LENGTH)}…` : key;
  return IDENTIFIER.test(shown) ? shown : JSON.stringify(shown);
}

/** `listRelatedEntity[2].listAddress[0].addressType`; unusual keys are quoted: `["a.b"]`. */
export function formatPath(segments: readonly Segment[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else {
      const key = formatKey(segment);
      if (key.startsWith('"')) path += `[${key}]`;
      else path += path === '' ? key : `.${key}`;
    }
  }
  return path;
}

/** `<flat code>.<field names without indexes>.<PROBLEM>`: locates the field from the code alone. */
export function fieldCode(flatCode: string, segments: readonly Segment[], problem: FieldProblem): string {
  const names = segments.filter((segment): segment is string => typeof segment === 'string');
  return [flatCode, ...names, problem].join('.');
}

function describe(path: string): string {
  return path === '' ? 'The body' : path;
}

function notAllowedProblem(field: Segment | undefined, parent: unknown, error: ErrorObject): FieldProblem {
  if (field === 'closingDate') return FieldProblems.NotAllowedUnlessClosed;
  if (field === 'riskLevel') return FieldProblems.NotAllowedWithEvaluate;
  if (field === 'initializeScreeningProcesses') return FieldProblems.NotAllowedInBatch;
  const entityType =
    parent !== null && typeof parent === 'object'
      ? (parent as Record<string, unknown>).entityType
      : undefined;
  if (error.schemaPath.includes('/then/') && entityType === 'INDIVIDUAL')
    return FieldProblems.NotAllowedForIndividual;
  if (error.schemaPath.includes('/then/') && entityType === 'ORGANIZATION')
    return FieldProblems.NotAllowedForOrganization;
  return FieldProblems.NotAllowed;
}

const NOT_ALLOWED_TEXT: Partial<Record<FieldProblem, string>> = {
  NOT_ALLOWED_FOR_INDIVIDUAL: 'is not allowed for entityType INDIVIDUAL',
  NOT_ALLOWED_FOR_ORGANIZATION: 'is not allowed for entityType ORGANIZATION',
  NOT_ALLOWED_UNLESS_CLOSED: 'is only allowed when customerStatus is CLOSED',
  NOT_ALLOWED_WITH_EVALUATE: 'is not allowed when sourceOfRiskLevel is EVALUATE',
  NOT_ALLOWED_IN_BATCH: 'is not available in the batch endpoints',
  NOT_ALLOWED: 'is not allowed here',
};

interface Candidate {
  segments: Segment[];
  /** Where the code points when it differs from the path: an unknown key is named by the path only. */
  codeSegments?: Segment[];
  problem: FieldProblem;
  message: string;
}

/** One Ajv error to at most one candidate; wrapper keywords (if, anyOf...) carry no problem of their own. */
function candidateOf(error: ErrorObject, data: unknown): Candidate | undefined {
  const at = segmentsOf(error.instancePath, data);
  const where = describe(formatPath(at));
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'if':
    case 'allOf':
    case '$ref':
      return undefined;
    case 'required': {
      const property = String(params.missingProperty);
      const segments = [...at, property];
      const reason = REQUIRED_REASONS[property] ?? '';
      return {
        segments,
        problem: FieldProblems.Required,
        message: `${formatPath(segments)} is required${reason}`,
      };
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const property = String(params.additionalProperty ?? params.unevaluatedProperty);
      const segments = [...at, property];
      return {
        segments,
        codeSegments: at,
        problem: FieldProblems.UnknownField,
        message: `${formatPath(segments)} is not a known field`,
      };
    }
    case 'false schema': {
      const problem = notAllowedProblem(at[at.length - 1], valueAt(at.slice(0, -1), data), error);
      return {
        segments: at,
        problem,
        message: `${where} ${NOT_ALLOWED_TEXT[problem] ?? 'is not allowed here'}`,
      };
    }
    case 'const':
      if (at[at.length - 1] === 'sourceOfRiskLevel' && params.allowedValue === 'IMPORT') {
        return {
          segments: at,
          problem: FieldProblems.NotAllowedInBatch,
          message: `${where} must be IMPORT or absent: evaluation is not available in the batch endpoints`,
        };
      }
      return {
        segments: at,
        problem: FieldProblems.InvalidValue,
        message: `${where} must be ${JSON.stringify(params.allowedValue)}`,
      };
    case 'enum':
      return {
        segments: at,
        problem: FieldProblems.InvalidValue,
        message: `${where} must be one of ${(params.allowedValues as unknown[]).join(', ')}`,
      };
    case 'type':
      return {
        segments: at,
        problem: FieldProblems.InvalidType,
        message: `${where} must be of type ${String(params.type).replace(',', ' or ')}`,
      };
    case 'format':
      if (params.format === 'date') {
        return {
          segments: at,
          problem: FieldProblems.InvalidDate,
          message: `${where} must be a calendar date in the form YYYY-MM-DD`,
        };
      }
      return {
        segments: at,
        problem: FieldProblems.InvalidFormat,
        message: `${where} must be a valid ${String(params.format)}`,
      };
    case 'pattern':
      if (params.pattern === NO_NUL_PATTERN) {
        return {
          segments: at,
          problem: FieldProblems.ForbiddenCharacter,
          message: `${where} must not contain NUL characters`,
        };
      }
      if (String(params.pattern).includes('[0-9]{4}-')) {
        return {
          segments: at,
          problem: FieldProblems.InvalidDate,
          message: `${where} must be a calendar date in the form YYYY-MM-DD`,
        };
      }
      return {
        segments: at,
        problem: FieldProblems.InvalidNumber,
        message: `${where} must be a number or a numeric string`,
      };
    case 'maxLength':
      return {
        segments: at,
        problem: FieldProblems.TooLong,
        message: `${where} must be at most ${String(params.limit)} characters long`,
      };
    case 'minLength':
      return {
        segments: at,
        problem: FieldProblems.TooShort,
        message: `${where} must be at least ${String(params.limit)} characters long`,
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        segments: at,
        problem: FieldProblems.OutOfRange,
        message: `${where} must be ${String(params.comparison)} ${String(params.limit)}`,
      };
    case 'maxItems':
      return {
        segments: at,
        problem: FieldProblems.TooManyItems,
        message: `${where} must have at most ${String(params.limit)} items`,
      };
    case 'minItems':
      return {
        segments: at,
        problem: FieldProblems.TooFewItems,
        message: `${where} must have at least ${String(params.limit)} items`,
      };
    case 'uniqueItems':
      return {
        segments: at,
        problem: FieldProblems.DuplicateItem,
        message: `${where} must not repeat an item (items ${String(params.j)} and ${String(params.i)} are equal)`,
      };
    default:
      return { segments: at, problem: FieldProblems.InvalidValue, message: `${where} is not valid` };
  }
}

/**
 * Translates raw Ajv errors into one error per field: wrapper noise (if/then, allOf) is dropped and,
 * where several keywords fail for the same field, the most specific problem is kept. Messages name
 * fields and rules, never the submitted values.
 */
export function translateAjvErrors(
  errors: readonly ErrorObject[] | null | undefined,
  data: unknown,
  flatCode: string = ErrorCodes.ValidationFailed,
): FieldError[] {
  const byPath = new Map<string, Candidate>();
  for (const error of errors ?? []) {
    const candidate = candidateOf(error, data);
    if (candidate === undefined) continue;
    const path = formatPath(candidate.segments);
    const existing = byPath.get(path);
    if (existing === undefined || PRIORITY[candidate.problem] < PRIORITY[existing.problem]) {
      byPath.set(path, candidate);
    }
  }
  return [...byPath.entries()].map(([path, { segments, codeSegments, problem, message }]) => ({
    path,
    code: fieldCode(flatCode, codeSegments ?? segments, problem),
    message,
  }));
}

const MAX_SUMMARIZED = 10;

/**
 * The errorCode / errorDescription pair of a rejected batch item or simplified customer: the code of the
 * first problem (it starts with the flat code, e.g. V001) and the messages of up to ten problems.
 */
export function summarizeErrors(errors: readonly FieldError[]): {
  errorCode: string;
  errorDescription: string;
} {
  const first = errors[0];
  if (first === undefined)
    return { errorCode: ErrorCodes.ValidationFailed, errorDescription: 'Validation failed' };
  const shown = errors.slice(0, MAX_SUMMARIZED).map((error) => error.message);
  const rest = errors.length - shown.length;
  return {
    errorCode: first.code,
    errorDescription: `Validation failed: ${shown.join('; ')}${rest > 0 ? `; and ${rest} more` : ''}`,
  };
}
