/**
 * Which fields are personal data, as path patterns for encryptFields (docs/privacy.md, "What is
 * personal"). Relative to the customer record: `data.customer` of ImportCustomer, CustomerCreated,
 * CustomerUpdated, ScreeningRequested and RiskEvaluationRequested, and the customer view of the
 * projections. Kept in plain: identifiers the system routes by (businessUnit, customerExtId, extIds of
 * related entities), country codes and flags the risk matrix reads, and codes from classifiers.
 */
const PERSON = ['firstName', 'lastName', 'birthDate', 'nationalCode'] as const;
const ADDRESS = ['addressDetails', 'streetAddress', 'zipCode', 'city', 'region'] as const;

export const CustomerPersonalFields: readonly string[] = [
  ...PERSON,
  'placeOfBirth',
  'initialDepositAccount',
  'fieldOfActivity.employment.employerTitle',
  'listContact[].contactDetails',
  ...ADDRESS.map((f) => `listAddress[].${f}`),
  'listBusinessEntityDocument[].documentNumber',
  'listCountryOfTaxPayment[].taxpayerNumber',
  ...PERSON.map((f) => `listRelatedEntity[].${f}`),
  'listRelatedEntity[].listContact[].contactDetails',
  ...ADDRESS.map((f) => `listRelatedEntity[].listAddress[].${f}`),
  'listRelatedEntity[].listBusinessEntityDocument[].documentNumber',
];

/**
 * Relative to one screening hit (`data.hits[]` of ScreeningCompleted, RecordScreeningResult and
 * RecordRescreeningResult): the list entry's names next to the customer's id reveal the customer's name,
 * and the explanation holds the customer's name words, readings and birth date. Each string is encrypted
 * on its own, so every field keeps its registered type (a string stays a string, an array of strings
 * an array of strings): the registry's compatibility rule accepts the hits unchanged.
 */
export const ScreeningHitPersonalFields: readonly string[] = [
  'matchedName',
  'names[]',
  'explanation.matchedName',
  'explanation.queryTokens[]',
  'explanation.candidateTokens[]',
  'explanation.tokenPairs[].query',
  'explanation.tokenPairs[].candidate',
  'explanation.qualifiers[].detail',
  'explanation.reading.name',
];
