/**
 * The package's pure entry point (`@crs/contracts/types`): the types generated from schemas/, the
 * message catalogues, the error codes and the pure helpers. Unlike the index, it loads no schema
 * file and no validator (no fs, path or ajv), so domain code imports it.
 */
export * from './events';
export * from './generated';
export type { ScreeningList } from './generated/risk/risk-matrix.v1';
export * from './error-codes';
export * from './cloud-events';
export * from './operations';
export * from './stream-key';
