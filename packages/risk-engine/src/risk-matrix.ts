/**
 * TypeScript view of schemas/risk/risk-matrix.v1.schema.json. The schema is the source of truth:
 * validateMatrix checks a document against it before it is treated as a RiskMatrix.
 */
import type { RiskLevel } from './risk-level';
import type { EntityType, ScreeningList } from './risk-subject';

export type RaisedLevel = Exclude<RiskLevel, 'NONE'>;
export type SubjectRole = 'CUSTOMER' | 'RELATED_ENTITY';
export type RiskCategory = 'CUSTOMER' | 'PRODUCT_SERVICE' | 'GEOGRAPHY' | 'CHANNEL';

export type BooleanField =
  | 'isPEP'
  | 'isFamilyPEP'
  | 'isSanctioned'
  | 'isInAdverseMedia'
  | 'isInInternalList'
  | 'isLitigated'
  | 'doesCashDominate'
  | 'hasMultiLayerStructure'
  | 'isListed'
  | 'isRegulated'
  | 'isLicenseRequired'
  | 'isFinancialInstitution'
  | 'isDirectlyManaged'
  | 'noMajorShareHolders'
  | 'thirdPartyServicesUsed'
  | 'isFined'
  | 'isAudited'
  | 'isLegalResident'
  | 'isActualAddressDeclared'
  | 'isCorrespondenceAddressDeclared'
  | 'amlOfficer';

export type CountrySource =
  | 'citizenshipCountry'
  | 'secondCitizenshipCountry'
  | 'permanentResidenceCountry'
  | 'birthCountry'
  | 'registrationCountry'
  | 'country'
  | 'listAddress'
  | 'listCountryOfActivity'
  | 'listPaymentCountry'
  | 'listCountryOfTaxPayment'
  | 'relatedEntities';

export type CodeSource =
  | 'legalForm'
  | 'listActivity'
  | 'listOrderedService'
  | 'listIntroductionSource'
  | 'listSourceOfWealth'
  | 'listIncomeSource'
  | 'listPaymentPurpose';

export type BandSource =
  | 'declaredTurnover'
  | 'businessAgeYears'
  | 'initialDepositAmount'
  | 'companyAssetValue';

export interface RiskThresholds {
  LOW: number;
  MEDIUM: number;
  HIGH: number;
  EXTREME: number;
}

export interface CountryList {
  label: string;
  score: number;
  countries: string[];
}

export interface CountryRiskTable {
  source: string;
  asOf: string;
  note?: string;
  lists: Record<string, CountryList>;
  countryScores?: Record<string, number>;
  defaultScore: number;
  unknownCountryScore: number;
}

interface FactorBase {
  id: string;
  label: string;
  description?: string;
  riskCategory?: RiskCategory;
  weight: number;
  appliesTo: { entityTypes: EntityType[]; roles: SubjectRole[] };
}

export interface CountryFactor extends FactorBase {
  kind: 'country';
  sources: CountrySource[];
}

export interface FlagsFactor extends FactorBase {
  kind: 'flags';
  flags: Array<{ field: BooleanField; whenTrue: number; whenFalse: number }>;
}

export interface CodesFactor extends FactorBase {
  kind: 'codes';
  source: CodeSource;
  scores: Record<string, number>;
  defaultScore: number;
}

export interface BandsFactor extends FactorBase {
  kind: 'bands';
  source: BandSource;
  bands: Array<{ below?: number; score: number }>;
}

export interface ScreeningFactor extends FactorBase {
  kind: 'screening';
  list: ScreeningList;
  flagField?: BooleanField;
  flagScore?: number;
  confirmedMatchScore: number;
  potentialMatchScore: number;
  noMatchScore: number;
}

export interface ListPurposeFactor extends FactorBase {
  kind: 'list-purpose';
  blackScore: number;
  whiteScore: number;
}

export interface RelatedEntitiesFactor extends FactorBase {
  kind: 'related-entities';
  relationTypes?: string[];
  levelScores: Record<RiskLevel, number>;
  share: { fullWeightAtShare: number; minimumWeight: number };
}

export type RiskFactor =
  | CountryFactor
  | FlagsFactor
  | CodesFactor
  | BandsFactor
  | ScreeningFactor
  | ListPurposeFactor
  | RelatedEntitiesFactor;

export type FloorCondition =
  | { field: BooleanField | 'listPurpose' | 'legalForm' | 'entityType'; equals: string | boolean }
  | { screening: ScreeningList; status: 'CONFIRMED' | 'POTENTIAL' | 'ANY_MATCH' }
  | { countryIn: string[]; sources?: CountrySource[] }
  | { codeIn: CodeSource; codes: string[] }
  | { relatedEntity: FloorCondition }
  | { anyOf: FloorCondition[] }
  | { allOf: FloorCondition[] };

export interface RiskFloor {
  id: string;
  level: RaisedLevel;
  reason: string;
  when: FloorCondition;
}

export interface RiskMatrix {
  $schema?: string;
  matrixId: string;
  version: number;
  businessUnit: string;
  riskManagementCategories: string[];
  entityTypes: EntityType[];
  description: string;
  thresholds: RiskThresholds;
  scoring: {
    maxFactorWeightShare: number;
    whiteListRelief?: { scorePoints: number; maxLevelsDown: number };
  };
  countryRisk: CountryRiskTable;
  factors: RiskFactor[];
  floors: RiskFloor[];
}
