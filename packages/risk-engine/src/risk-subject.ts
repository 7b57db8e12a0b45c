import { EntityTypes, ScreeningLists, type EntityType, type ScreeningList } from '@crs/contracts/types';

/**
 * Input of the engine. Field names follow the customer record of the HTTP interface (spec 2.1/2.2),
 * all optional and loosely typed, so that a stored customer record is assignable as it is and a field
 * of an unexpected type simply makes its factor not applicable.
 */
export type { EntityType, ScreeningList };
/** The lists are generated from schemas/ (generated/messages.ts), the engine keeps its names for them. */
export const ENTITY_TYPES: readonly EntityType[] = EntityTypes;
export const SCREENING_LISTS: readonly ScreeningList[] = ScreeningLists;

export interface ScreeningResult {
  /** The list produced at least one candidate above the screening threshold. */
  matched: boolean;
  /** true: an analyst confirmed the match; false: dismissed as a false positive; absent: not reviewed yet. */
  confirmed?: boolean;
  /** Best candidate similarity, 0..1 (reported in explanations only). */
  topScore?: number;
}

export type ScreeningResults = Partial<Record<ScreeningList, ScreeningResult>>;

export interface RiskContext {
  /** The evaluation date, YYYY-MM-DD. The engine never reads a clock. */
  today: string;
  /** Screening results of the customer, per list. */
  screening?: ScreeningResults;
  /** Screening results of related entities, keyed by their extId, or by `#<index in listRelatedEntity>` when they have none. */
  relatedEntityScreening?: Readonly<Record<string, ScreeningResults>>;
}

interface CountryItem {
  country?: string;
}

export interface ActivityItem {
  activityType?: string;
  incomePercentage?: number;
}

export interface IncomeSourceItem {
  incomeSourceType?: string;
  incomePercentage?: number;
  from?: number;
  to?: number;
}

export interface AddressItem extends CountryItem {
  addressType?: string;
  city?: string;
  region?: string;
  streetAddress?: string;
  zipCode?: string;
}

/** Fields shared by the customer and its related entities. */
export interface RiskSubjectCommon {
  entityType?: string;
  nationalCode?: string;
  firstName?: string;
  lastName?: string;
  birthDate?: string;
  birthCountry?: string;
  title?: string;
  legalForm?: string;
  registrationCountry?: string;
  establishmentDate?: string;
  activityDescription?: string;
  isPEP?: boolean;
  isSanctioned?: boolean;
  isInAdverseMedia?: boolean;
  isInInternalList?: boolean;
  listAddress?: readonly AddressItem[];
  listIncomeSource?: readonly IncomeSourceItem[];
  listActivity?: readonly ActivityItem[];
  listCountryOfActivity?: readonly CountryItem[];
}

export interface RelatedEntity extends RiskSubjectCommon {
  relationType?: string;
  relationDescription?: string;
  extId?: string;
  /** Ownership share in percent. */
  share?: number;
  votePercentage?: number;
  country?: string;
}

export interface RiskSubject extends RiskSubjectCommon {
  businessUnit?: string;
  riskManagementCategory?: string;
  customerExtId?: string;
  communicationNumber?: string;
  listPurpose?: string;
  citizenshipCountry?: string;
  secondCitizenshipCountry?: string;
  permanentResidenceCountry?: string;
  tradingName?: string;
  isLegalResident?: boolean;
  isFamilyPEP?: boolean;
  amlOfficer?: boolean;
  isAudited?: boolean;
  isFined?: boolean;
  hasMultiLayerStructure?: boolean;
  isFinancialInstitution?: boolean;
  isDirectlyManaged?: boolean;
  noMajorShareHolders?: boolean;
  numberOfEmployees?: number;
  companyAssetValue?: number;
  isListed?: boolean;
  isRegulated?: boolean;
  isLicenseRequired?: boolean;
  thirdPartyServicesUsed?: boolean;
  isLitigated?: boolean;
  doesCashDominate?: boolean;
  isActualAddressDeclared?: boolean;
  isCorrespondenceAddressDeclared?: boolean;
  /** The interface also allows a numeric string. */
  initialDepositAmount?: number | string;
  initialDepositCurrency?: string;
  listIntroductionSource?: readonly { introductionSource?: string }[];
  listOrderedService?: readonly { serviceType?: string }[];
  listDeclaredTurnover?: readonly {
    from?: number;
    to?: number;
    turnoverRange?: string;
    turnoverType?: string;
  }[];
  listPaymentPurpose?: readonly { paymentPurposeType?: string; turnoverDirection?: string }[];
  listSourceOfWealth?: readonly { code?: string; amount?: number; comment?: string }[];
  listPaymentCountry?: readonly { country?: string; turnoverDirection?: string }[];
  listCountryOfTaxPayment?: readonly { country?: string; taxpayerNumber?: string }[];
  listRelatedEntity?: readonly RelatedEntity[];
}
