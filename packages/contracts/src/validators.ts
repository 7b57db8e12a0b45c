import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ErrorCodes, FieldProblems } from './error-codes';
import { fieldCode, formatPath, translateAjvErrors, type FieldError } from './field-errors';
import { SchemaIds, schemaDocuments, type SchemaModule } from './generated/schemas.generated';
import type { CustomerRecord } from './generated/http/customer.v1';
import type { SimplifiedCustomerRecord } from './generated/http/simplified-customer.v1';

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** `single`: POST /core-ws-rest/customer. `batch`: one element of customers in the batch endpoints. */
export type CustomerMode = 'single' | 'batch';

/** The request body of the batch endpoints after the shape check; items are validated one by one. */
export interface BatchRequestShape {
  customers: unknown[];
}

export interface BatchRequestOptions {
  /** Largest accepted number of customers; more yields one BATCH_TOO_LARGE error. */
  maxItems: number;
}

/** Thrown when a schema id is asked for that no file under schemas/ declares. */
export class SchemaUnknownError extends Error {
  readonly code = 'SCHEMA_UNKNOWN';
  constructor(readonly schemaId: string) {
    super(`No schema with $id ${schemaId}`);
    this.name = 'SchemaUnknownError';
  }
}

export interface Validators {
  /** Compiled validator of every schema, keyed by module (`http/customer.v1`, `events/risk-assessed.v1`, ...). */
  readonly byModule: Readonly<Record<SchemaModule, ValidateFunction>>;
  /** Compiled validator of any schema by its `$id`. */
  getValidator(schemaId: string): ValidateFunction;
  /** Validates against any schema and translates failures into field errors. */
  validate<T>(schemaId: string, body: unknown): ValidationResult<T>;
  /** A customer record; in batch mode the returned value carries the default sourceOfRiskLevel IMPORT. */
  validateCustomer(body: unknown, mode: CustomerMode): ValidationResult<CustomerRecord>;
  validateSimplifiedCustomer(body: unknown): ValidationResult<SimplifiedCustomerRecord>;
  /** Shape only (an object with exactly an array customers, within maxItems); items are checked with validateCustomer. */
  validateBatchRequest(body: unknown, options: BatchRequestOptions): ValidationResult<BatchRequestShape>;
}

/**
 * Compiles every schema under schemas/ once (Ajv 2020-12, strict, allErrors). Call at start-up: a schema
 * that Ajv's strict mode rejects fails here rather than on the first request.
 */
export function createValidators(): Validators {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    // Conditional rules name fields in then/required that are declared in the enclosing properties;
    // strictRequired does not look there and would reject every such rule.
    strictRequired: false,
    allowUnionTypes: true,
  });
  addFormats(ajv);
  // Annotation read by collectClassifierRefs and shown in the OpenAPI document; no validation.
  ajv.addVocabulary(['x-classifier']);
  for (const document of schemaDocuments) ajv.addSchema(document as object);

  const byModule = {} as Record<SchemaModule, ValidateFunction>;
  const byId = new Map<string, ValidateFunction>();
  for (const [module, id] of Object.entries(SchemaIds) as Array<[SchemaModule, string]>) {
    const validate = ajv.getSchema(id);
    if (validate === undefined) throw new SchemaUnknownError(id);
    byModule[module] = validate;
    byId.set(id, validate);
  }

  const getValidator = (schemaId: string): ValidateFunction => {
    const validate = byId.get(schemaId);
    if (validate === undefined) throw new SchemaUnknownError(schemaId);
    return validate;
  };
  const run = <T>(validate: ValidateFunction, body: unknown): ValidationResult<T> =>
    validate(body)
      ? { ok: true, value: body as T }
      : { ok: false, errors: translateAjvErrors(validate.errors, body) };

  const single = byModule['http/customer.v1'];
  const batchItem = byModule['http/customer-batch-item.v1'];
  const simplified = byModule['http/simplified-customer.v1'];

  return {
    byModule,
    getValidator,
    validate: <T>(schemaId: string, body: unknown) => run<T>(getValidator(schemaId), body),
    validateCustomer(body, mode) {
      if (mode === 'single') return run<CustomerRecord>(single, body);
      const result = run<CustomerRecord>(batchItem, body);
      return result.ok ? { ok: true, value: { ...result.value, sourceOfRiskLevel: 'IMPORT' } } : result;
    },
    validateSimplifiedCustomer: (body) => run<SimplifiedCustomerRecord>(simplified, body),
    validateBatchRequest: (body, options) => checkBatchShape(body, options),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function shapeError(
  segments: string[],
  problem: (typeof FieldProblems)[keyof typeof FieldProblems],
  message: string,
): FieldError {
  return {
    path: formatPath(segments),
    code: fieldCode(ErrorCodes.ValidationFailed, segments, problem),
    message,
  };
}

function checkBatchShape(
  body: unknown,
  { maxItems }: BatchRequestOptions,
): ValidationResult<BatchRequestShape> {
  if (!isPlainObject(body)) {
    return {
      ok: false,
      errors: [
        shapeError([], FieldProblems.InvalidType, 'The body must be an object with an array customers'),
      ],
    };
  }
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) {
    if (key !== 'customers') {
      errors.push({
        path: formatPath([key]),
        code: fieldCode(ErrorCodes.ValidationFailed, [], FieldProblems.UnknownField),
        message: `${formatPath([key])} is not a known field`,
      });
    }
  }
  const customers = body.customers;
  if (customers === undefined)
    errors.push(shapeError(['customers'], FieldProblems.Required, 'customers is required'));
  else if (!Array.isArray(customers))
    errors.push(shapeError(['customers'], FieldProblems.InvalidType, 'customers must be of type array'));
  else if (customers.length > maxItems) {
    errors.push({
      path: 'customers',
      code: ErrorCodes.BatchTooLarge,
      message: `customers must have at most ${maxItems} items`,
    });
  }
  return errors.length === 0
    ? { ok: true, value: { customers: customers as unknown[] } }
    : { ok: false, errors };
}

let defaults: Validators | undefined;
// Compiled on first use so that importing the package stays cheap; the instance is never exposed.
const shared = (): Validators => (defaults ??= createValidators());

/** {@link Validators.validateCustomer} on a shared, lazily compiled validator set. */
export function validateCustomer(body: unknown, mode: CustomerMode): ValidationResult<CustomerRecord> {
  return shared().validateCustomer(body, mode);
}

/** {@link Validators.validateSimplifiedCustomer} on a shared, lazily compiled validator set. */
export function validateSimplifiedCustomer(body: unknown): ValidationResult<SimplifiedCustomerRecord> {
  return shared().validateSimplifiedCustomer(body);
}

/** {@link Validators.validateBatchRequest}; needs no compiled schema. */
export function validateBatchRequest(
  body: unknown,
  options: BatchRequestOptions,
): ValidationResult<BatchRequestShape> {
  return checkBatchShape(body, options);
}

/** {@link Validators.getValidator} on a shared, lazily compiled validator set. */
export function getValidator(schemaId: string): ValidateFunction {
  return shared().getValidator(schemaId);
}
