/**
 * The package's pure entry point (`@crs/screening-core/matcher`): the list model, the query and hit
 * types, the index and the screening itself. Unlike the index it holds no list loader (files, hashing)
 * and no dictionary loader, so domain code imports it.
 */
export * from './model';
export {
  DEFAULT_THRESHOLD,
  type ScreeningQuery,
  type ScreeningOptions,
  type Hit,
  type HitExplanation,
} from './screening-query';
export { buildIndex, type ScreeningIndex, type IndexOptions } from './screening-index';
export { screen, screenExhaustive } from './screen';
export { normalizeCountry, normalizeCountries } from './matching/countries';
