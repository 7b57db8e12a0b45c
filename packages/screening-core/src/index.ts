export * from './model';
export * from './errors';
export { readInput } from './loaders/input';
export { entryContentHash, contentVersion, makeSnapshot, diffSnapshots } from './loaders/snapshot';
export {
  loadOfacSdn,
  loadOfacSdnWithStats,
  loadOfacConsolidated,
  parseOfacRemarks,
  type OfacInputs,
  type OfacLoadStats,
} from './loaders/ofac';
export { loadUnConsolidated } from './loaders/un';
export { loadSenzingJsonLines, type SenzingOptions } from './loaders/senzing';
export { loadRecordList, loadInternalList, type ListRecord, type RecordListOptions } from './loaders/records';
export { loadAdverseMedia, ADVERSE_MEDIA_DEMO_FILE } from './loaders/adverse-media';
export {
  loadAllDemoLists,
  resolveSharedDataDir,
  REPO_ROOT,
  type DemoListOptions,
} from './loaders/demo-lists';
export { listProvider, type ListProvider } from './loaders/list-provider';
export { foldAccents } from './matching/fold';
export {
  foldName,
  nameTokens,
  nameKind,
  TITLES,
  PARTICLES,
  LEGAL_FORMS,
  type NameKind,
} from './matching/normalize';
export { normalizeCountry, normalizeCountries } from './matching/countries';
export {
  createNameReader,
  KOREAN_READER,
  type JapaneseTokenizer,
  type NameReader,
  type NameReading,
} from './matching/readings';
export { loadJapaneseTokenizer } from './matching/japanese-tokenizer';
export { koreanListSpelling, koreanRevised, romanizeKana } from './matching/romanize';
export { makeToken, tokenSimilarity, linked, INITIAL_SIMILARITY, type Token } from './matching/token';
export { compareNames, type NameComparison, type TokenPair } from './matching/name-score';
export {
  MIN_TOKEN_SIMILARITY,
  UNMATCHED_QUERY_PENALTY,
  UNMATCHED_CANDIDATE_PENALTY,
  UNMATCHED_CANDIDATE_PENALTY_COVERED,
  COVERED_MIN_WEIGHT,
  COVERED_MIN_SIMILARITY,
} from './matching/name-score-weights';
export {
  qualify,
  compareBirthDates,
  compareCountries,
  compareIdentifiers,
  QUALIFIER_DELTAS,
  type QualifierResult,
  type QualifierKind,
  type QualifierOutcome,
  type QualifierQuery,
} from './matching/qualifiers';
export {
  DEFAULT_THRESHOLD,
  type ScreeningQuery,
  type ScreeningOptions,
  type Hit,
  type HitExplanation,
} from './screening-query';
export { READING_PENALTY } from './query-variants';
export { buildIndex, type ScreeningIndex, type IndexOptions } from './screening-index';
export { SHORT_WORD_PENALTY, scoreEntry } from './score';
export { screen, screenExhaustive } from './screen';
