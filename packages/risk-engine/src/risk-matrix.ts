/**
 * The engine's names for the types generated from schemas/risk/risk-matrix.v1.schema.json (the source
 * of truth: validateMatrix checks a document against it before it is treated as a RiskMatrix).
 */
import type {
  CountryRisk,
  Factor,
  FactorBase,
  Floor,
  Condition,
  Role,
  RiskMatrix as GeneratedRiskMatrix,
} from '@crs/contracts/types';

export type { BandSource, BooleanField, CodeSource, CountrySource, RaisedLevel } from '@crs/contracts/types';

export type RiskMatrix = GeneratedRiskMatrix;
export type SubjectRole = Role;
export type RiskCategory = NonNullable<FactorBase['riskCategory']>;
export type RiskThresholds = RiskMatrix['thresholds'];
export type CountryRiskTable = CountryRisk;
export type CountryList = NonNullable<CountryRisk['lists'][string]>;

export type RiskFactor = Factor;
export type CountryFactor = Extract<RiskFactor, { kind: 'country' }>;
export type FlagsFactor = Extract<RiskFactor, { kind: 'flags' }>;
export type CodesFactor = Extract<RiskFactor, { kind: 'codes' }>;
export type BandsFactor = Extract<RiskFactor, { kind: 'bands' }>;
export type ScreeningFactor = Extract<RiskFactor, { kind: 'screening' }>;
export type ListPurposeFactor = Extract<RiskFactor, { kind: 'list-purpose' }>;
export type RelatedEntitiesFactor = Extract<RiskFactor, { kind: 'related-entities' }>;

export type FloorCondition = Condition;
export type RiskFloor = Floor;
