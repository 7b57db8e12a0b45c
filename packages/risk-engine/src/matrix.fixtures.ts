// Shared fixtures for the unit tests (not a test suite: named *.fixtures.ts, excluded from the build).
import { loadBundledMatrices } from './bundled-matrices';
import type { RiskMatrix } from './risk-matrix';
import type { RiskSubject } from './risk-subject';

export const TODAY = '2025-06-13';

export function demoMatrices(): { persons: RiskMatrix; organizations: RiskMatrix } {
  const matrices = loadBundledMatrices();
  const persons = matrices.find((matrix) => matrix.matrixId === 'demo-persons');
  const organizations = matrices.find((matrix) => matrix.matrixId === 'demo-organizations');
  if (!persons || !organizations) throw new Error('bundled DEMO matrices missing');
  return { persons, organizations };
}

/**
 * Five equally weighted flag factors (20% each) and thresholds at 20/40/60/80, so that k flags set to
 * true score exactly 20k: every threshold can be hit exactly.
 */
export function fiveFlagMatrix(overrides: Partial<RiskMatrix> = {}): RiskMatrix {
  const fields = [
    'isPEP',
    'isInAdverseMedia',
    'isInInternalList',
    'doesCashDominate',
    'isLitigated',
  ] as const;
  return {
    matrixId: 'five-flags',
    version: 1,
    businessUnit: 'TEST',
    riskManagementCategories: ['IND'],
    entityTypes: ['INDIVIDUAL'],
    description: 'test matrix',
    thresholds: { LOW: 20, MEDIUM: 40, HIGH: 60, EXTREME: 80 },
    scoring: { maxFactorWeightShare: 0.2 },
    countryRisk: {
      source: 'test',
      asOf: '2025-06-13',
      lists: { BLACK: { label: 'black', score: 100, countries: ['IR'] } },
      defaultScore: 0,
      unknownCountryScore: 50,
    },
    factors: fields.map((field) => ({
      id: field.toUpperCase(),
      label: field,
      kind: 'flags' as const,
      weight: 1,
      appliesTo: { entityTypes: ['INDIVIDUAL' as const], roles: ['CUSTOMER' as const] },
      flags: [{ field, whenTrue: 100, whenFalse: 0 }],
    })),
    floors: [],
    ...overrides,
  };
}

/** An individual with every factor of the persons matrix present and at its lowest score. */
export function minimalRiskPerson(): RiskSubject {
  return {
    entityType: 'INDIVIDUAL',
    firstName: 'Ona',
    lastName: 'Petraitė',
    citizenshipCountry: 'LT',
    birthCountry: 'LT',
    permanentResidenceCountry: 'LT',
    listCountryOfActivity: [{ country: 'LT' }],
    listPaymentCountry: [{ country: 'LT', turnoverDirection: 'IN' }],
    listCountryOfTaxPayment: [{ country: 'LT', taxpayerNumber: '1' }],
    isPEP: false,
    isFamilyPEP: false,
    isSanctioned: false,
    isInAdverseMedia: false,
    isInInternalList: false,
    listActivity: [{ activityType: 'EDUCATION' }],
    doesCashDominate: false,
    listDeclaredTurnover: [{ from: 0, to: 1000 }],
    listIncomeSource: [{ incomeSourceType: 'SALARY' }],
    listSourceOfWealth: [{ code: '1' }],
    listOrderedService: [{ serviceType: 'SAVINGS' }],
    listIntroductionSource: [{ introductionSource: 'FACE_TO_FACE' }],
  };
}
