import { FieldProblems, type FieldError } from '@crs/contracts';
import { fieldError } from '@crs/http';
import { SCREENING_LISTS, type EntityType, type ScreeningList } from '@crs/screening-core';
import { ScreeningRequestInvalidError } from './api-error';

export interface SearchQuery {
  name: string;
  entityType?: EntityType;
  birthDate?: string;
  countries?: string[];
  lists?: ScreeningList[];
  threshold?: number;
  limit: number;
  businessUnit?: string;
}

const ENTITY_TYPES: readonly EntityType[] = ['INDIVIDUAL', 'ORGANIZATION', 'VESSEL', 'AIRCRAFT'];
const DATE = /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$/;
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;

/**
 * Validates GET /api/screening/search: every problem is reported at once, located by parameter name.
 * `list` is accepted as a synonym of `lists` (the OpenAPI document's earlier name).
 */
export function parseSearchQuery(q: Record<string, unknown>): SearchQuery {
  const errors: FieldError[] = [];
  const str = (field: string): string | undefined => {
    const v = q[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      errors.push(fieldError(field, FieldProblems.InvalidType, `${field} must be given once`));
      return undefined;
    }
    return v.trim();
  };
  const name = str('name');
  if (!name) errors.push(fieldError('name', FieldProblems.Required, 'name is required'));
  else if (name.length > 300)
    errors.push(fieldError('name', FieldProblems.TooLong, 'name is longer than 300 characters'));
  const entityType = str('entityType');
  if (entityType && !ENTITY_TYPES.includes(entityType as EntityType)) {
    errors.push(
      fieldError(
        'entityType',
        FieldProblems.InvalidValue,
        `entityType must be one of ${ENTITY_TYPES.join(', ')}`,
      ),
    );
  }
  const birthDate = str('birthDate');
  if (birthDate && !DATE.test(birthDate))
    errors.push(
      fieldError('birthDate', FieldProblems.InvalidDate, 'birthDate must be YYYY, YYYY-MM or YYYY-MM-DD'),
    );
  const country = str('country');
  if (country !== undefined && (country === '' || country.length > 100)) {
    errors.push(fieldError('country', FieldProblems.InvalidValue, 'country must be 1..100 characters'));
  }
  const listsText = str('lists') ?? str('list');
  let lists: ScreeningList[] | undefined;
  if (listsText !== undefined) {
    lists = listsText.split(',').map((l) => l.trim()) as ScreeningList[];
    if (lists.length === 0 || lists.some((l) => !SCREENING_LISTS.includes(l))) {
      errors.push(
        fieldError(
          'lists',
          FieldProblems.InvalidValue,
          `lists must be a comma-separated subset of ${SCREENING_LISTS.join(', ')}`,
        ),
      );
    }
  }
  const thresholdText = str('threshold');
  const threshold = thresholdText === undefined ? undefined : Number(thresholdText);
  if (
    threshold !== undefined &&
    !(thresholdText !== '' && Number.isFinite(threshold) && threshold > 0 && threshold <= 1)
  ) {
    errors.push(fieldError('threshold', FieldProblems.OutOfRange, 'threshold must be a number in (0, 1]'));
  }
  const limitText = str('limit');
  const limit = limitText === undefined ? DEFAULT_SEARCH_LIMIT : Number(limitText);
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= MAX_SEARCH_LIMIT)) {
    errors.push(
      fieldError('limit', FieldProblems.OutOfRange, `limit must be an integer 1..${MAX_SEARCH_LIMIT}`),
    );
  }
  const businessUnit = str('businessUnit');
  if (businessUnit !== undefined && (businessUnit === '' || businessUnit.length > 255)) {
    errors.push(
      fieldError('businessUnit', FieldProblems.InvalidValue, 'businessUnit must be 1..255 characters'),
    );
  }
  if (errors.length > 0) throw new ScreeningRequestInvalidError(errors);
  return {
    name: name!,
    limit,
    ...(entityType ? { entityType: entityType as EntityType } : {}),
    ...(birthDate ? { birthDate } : {}),
    ...(country ? { countries: [country] } : {}),
    ...(lists ? { lists } : {}),
    ...(threshold !== undefined ? { threshold } : {}),
    ...(businessUnit ? { businessUnit } : {}),
  };
}

/**
 * The JSON body of POST /api/screening/search as the parameters of the GET form: numbers as their text,
 * `lists` also as an array. Anything else keeps its type, so the GET form's checks locate it.
 */
export function searchBodyAsQuery(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'number') out[key] = String(value);
    else if (
      (key === 'lists' || key === 'list') &&
      Array.isArray(value) &&
      value.every((v) => typeof v === 'string')
    )
      out[key] = value.join(',');
    else out[key] = value;
  }
  return out;
}

export interface DecisionRequest {
  businessUnit: string;
  customerExtId: string;
  list: ScreeningList;
  entryId: string;
  source?: string;
  decision: 'FALSE_POSITIVE' | 'CONFIRMED';
  reason: string;
}

const DECISION_FIELDS = new Set([
  'businessUnit',
  'customerExtId',
  'list',
  'entryId',
  'source',
  'decision',
  'reason',
]);

/** Validates the body of POST /api/screening/decisions (schemas/http/screening-decision-request.v1). */
export function parseDecisionRequest(body: unknown): DecisionRequest {
  const errors: FieldError[] = [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ScreeningRequestInvalidError([
      fieldError('', FieldProblems.InvalidType, 'The body must be a JSON object'),
    ]);
  }
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b))
    if (!DECISION_FIELDS.has(k))
      errors.push(fieldError(k, FieldProblems.UnknownField, `${k} is not a known field`));
  const text = (field: string, max: number, required = true): string | undefined => {
    const v = b[field];
    if (v === undefined) {
      if (required) errors.push(fieldError(field, FieldProblems.Required, `${field} is required`));
      return undefined;
    }
    if (typeof v !== 'string')
      errors.push(fieldError(field, FieldProblems.InvalidType, `${field} must be a string`));
    else if (v.trim() === '')
      errors.push(fieldError(field, FieldProblems.TooShort, `${field} must not be empty`));
    else if (v.length > max)
      errors.push(fieldError(field, FieldProblems.TooLong, `${field} is longer than ${max} characters`));
    else if (v.includes('\u0000'))
      errors.push(fieldError(field, FieldProblems.ForbiddenCharacter, `${field} contains a NUL character`));
    else return v;
    return undefined;
  };
  const businessUnit = text('businessUnit', 255);
  const customerExtId = text('customerExtId', 255);
  const list = text('list', 20);
  if (list !== undefined && !SCREENING_LISTS.includes(list as ScreeningList)) {
    errors.push(
      fieldError('list', FieldProblems.InvalidValue, `list must be one of ${SCREENING_LISTS.join(', ')}`),
    );
  }
  const entryId = text('entryId', 255);
  const source = text('source', 100, false);
  const decision = text('decision', 20);
  if (decision !== undefined && decision !== 'FALSE_POSITIVE' && decision !== 'CONFIRMED') {
    errors.push(
      fieldError('decision', FieldProblems.InvalidValue, 'decision must be FALSE_POSITIVE or CONFIRMED'),
    );
  }
  const reason = text('reason', 4000);
  if (errors.length > 0) throw new ScreeningRequestInvalidError(errors);
  return {
    businessUnit: businessUnit!,
    customerExtId: customerExtId!,
    list: list as ScreeningList,
    entryId: entryId!,
    decision: decision as DecisionRequest['decision'],
    reason: reason!,
    ...(source ? { source } : {}),
  };
}
