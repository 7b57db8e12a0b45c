export * from './events';
export * from './message-schemas';
export * from './generated';
// Where the hand-written event catalogue and the generated types share a name, the schema-generated
// type wins: schemas/ is the single source of truth.
export type { CustomerRecord, CustomerStatus, RiskLevel } from './generated';
export type { ScreeningList } from './generated/risk/risk-matrix.v1';
export { SchemaIds, schemaDocuments, type SchemaModule } from './generated/schemas.generated';
export * from './error-codes';
export { summarizeErrors, translateAjvErrors, formatPath, fieldCode, type FieldError } from './field-errors';
export * from './validators';
export * from './classifier-refs';
export * from './error-bodies';
export * from './openapi';
export * from './cloud-events';
export * from './operations';
