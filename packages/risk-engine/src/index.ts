export { RISK_LEVELS, isRiskLevel, levelRank, higherLevel, type RiskLevel } from './risk-level';
export {
  ENTITY_TYPES,
  SCREENING_LISTS,
  type EntityType,
  type RelatedEntity,
  type RiskContext,
  type RiskSubject,
  type ScreeningList,
  type ScreeningResult,
  type ScreeningResults,
} from './risk-subject';
export type {
  BandSource,
  BandsFactor,
  BooleanField,
  CodeSource,
  CodesFactor,
  CountryFactor,
  CountryList,
  CountryRiskTable,
  CountrySource,
  FlagsFactor,
  FloorCondition,
  ListPurposeFactor,
  RaisedLevel,
  RelatedEntitiesFactor,
  RiskCategory,
  RiskFactor,
  RiskFloor,
  RiskMatrix,
  RiskThresholds,
  ScreeningFactor,
  SubjectRole,
} from './risk-matrix';
export { validateMatrix, type MatrixValidation } from './validate-matrix';
export {
  evaluateRisk,
  levelForScore,
  type Assessment,
  type FactorAssessment,
  type FloorHit,
  type RelatedEntityAssessment,
  type WhiteListReliefApplied,
} from './evaluate-risk';
export {
  applyOverride,
  type OverriddenAssessment,
  type OverrideStatus,
  type RecordedOverride,
  type RiskOverride,
} from './apply-override';
export { selectMatrix } from './select-matrix';
export { loadBundledMatrices, loadExampleCountryRisk, type CountryRiskExample } from './bundled-matrices';
export { normaliseCountry } from './country-code';
export { runEngineBenchmark, type BenchmarkMeasurement } from './engine-benchmark';
export { RiskMatrixInvalidError } from './risk-matrix-invalid-error';
export { RiskMatrixEntityTypeUnsupportedError } from './risk-matrix-entity-type-unsupported-error';
