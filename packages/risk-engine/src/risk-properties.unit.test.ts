import fc from 'fast-check';
import { evaluateRisk, levelForScore } from './evaluate-risk';
import { demoMatrices, minimalRiskPerson, TODAY } from './matrix.fixtures';
import { isRiskLevel, levelRank, RISK_LEVELS, type RiskLevel } from './risk-level';
import type { RiskMatrix } from './risk-matrix';
import type { RiskContext, RiskSubject, ScreeningResults } from './risk-subject';

const { persons, organizations } = demoMatrices();
const SEED = 20250613;
const params = { seed: SEED, numRuns: 300 };

const country = fc.constantFrom(
  'LT',
  'DE',
  'FR',
  'US',
  'DEU',
  'ltu',
  'IR',
  'KP',
  'PRK',
  'MM',
  'NG',
  'VN',
  'AE',
  'PA',
  'TT',
  'BG',
  'XX',
  'Atlantis',
);
const countryList = fc.array(fc.record({ country }), { maxLength: 3 });
const code = (codes: string[]) => fc.constantFrom(...codes, 'UNKNOWN_CODE');
const screeningResult = fc.record(
  { matched: fc.boolean(), confirmed: fc.boolean(), topScore: fc.double({ min: 0, max: 1, noNaN: true }) },
  { requiredKeys: ['matched'] },
);
const screening: fc.Arbitrary<ScreeningResults> = fc.record(
  {
    SANCTIONS: screeningResult,
    PEP: screeningResult,
    ADVERSE_MEDIA: screeningResult,
    INTERNAL_LIST: screeningResult,
  },
  { requiredKeys: [] },
);
const date = fc
  .tuple(
    fc.integer({ min: 1950, max: 2030 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
  )
  .map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);

const common = {
  isPEP: fc.boolean(),
  isSanctioned: fc.boolean(),
  isInAdverseMedia: fc.boolean(),
  isInInternalList: fc.boolean(),
  doesCashDominate: fc.boolean(),
  listPurpose: fc.constantFrom('BLACK', 'WHITE'),
  listCountryOfActivity: countryList,
  listPaymentCountry: countryList,
  listCountryOfTaxPayment: countryList,
  listActivity: fc.array(
    fc.record({ activityType: code(['CASINO', 'CRYPTO', 'RETAIL', 'EDUCATION', 'ARMS']) }),
    { maxLength: 3 },
  ),
  listOrderedService: fc.array(
    fc.record({ serviceType: code(['SAVINGS', 'PRIVATE_BANKING', 'CRYPTO_EXCHANGE']) }),
    { maxLength: 3 },
  ),
  listIntroductionSource: fc.array(
    fc.record({ introductionSource: code(['FACE_TO_FACE', 'NON_FACE_TO_FACE']) }),
    { maxLength: 2 },
  ),
  listIncomeSource: fc.array(fc.record({ incomeSourceType: code(['SALARY', 'DIVIDENDS', 'BONUSES']) }), {
    maxLength: 2,
  }),
  listDeclaredTurnover: fc.array(
    fc.record({ from: fc.nat(1_000_000), to: fc.nat(10_000_000) }, { requiredKeys: [] }),
    { maxLength: 2 },
  ),
};

const personArb: fc.Arbitrary<RiskSubject> = fc
  .record(
    {
      ...common,
      citizenshipCountry: country,
      secondCitizenshipCountry: country,
      permanentResidenceCountry: country,
      birthCountry: country,
      isFamilyPEP: fc.boolean(),
      listSourceOfWealth: fc.array(fc.record({ code: fc.constantFrom('1', '3', '7', '99') }), {
        maxLength: 2,
      }),
    },
    { requiredKeys: [] },
  )
  .map((subject) => ({ entityType: 'INDIVIDUAL', firstName: 'F', lastName: 'L', ...subject }));

const relatedArb = fc.record(
  {
    entityType: fc.constantFrom('INDIVIDUAL', 'ORGANIZATION'),
    relationType: fc.constantFrom('DIRECTOR', 'OWNER', 'HOST'),
    extId: fc.constantFrom('r1', 'r2', 'r3'),
    share: fc.double({ min: 0, max: 100, noNaN: true }),
    country,
    registrationCountry: country,
    isPEP: fc.boolean(),
    isSanctioned: fc.boolean(),
    legalForm: code(['TRUST', 'PRIVATE_LIMITED_COMPANY']),
  },
  { requiredKeys: ['entityType'] },
);

const organizationArb: fc.Arbitrary<RiskSubject> = fc
  .record(
    {
      ...common,
      registrationCountry: country,
      legalForm: code(['TRUST', 'FOUNDATION', 'PRIVATE_LIMITED_COMPANY', 'PUBLIC_LIMITED_COMPANY']),
      establishmentDate: date,
      hasMultiLayerStructure: fc.boolean(),
      isListed: fc.boolean(),
      isRegulated: fc.boolean(),
      isLicenseRequired: fc.boolean(),
      listRelatedEntity: fc.array(relatedArb, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  )
  .map((subject) => ({ entityType: 'ORGANIZATION', title: 'T', ...subject }));

const contextArb: fc.Arbitrary<RiskContext> = fc.record(
  {
    today: date,
    screening,
    relatedEntityScreening: fc.dictionary(fc.constantFrom('r1', 'r2', '#0', '#1'), screening),
  },
  { requiredKeys: ['today'] },
);

type Indicator = {
  name: string;
  add: (subject: RiskSubject, ctx: RiskContext) => [RiskSubject, RiskContext];
};
const indicators: Indicator[] = [
  { name: 'isPEP', add: (s, c) => [{ ...s, isPEP: true }, c] },
  { name: 'isSanctioned', add: (s, c) => [{ ...s, isSanctioned: true }, c] },
  { name: 'isInAdverseMedia', add: (s, c) => [{ ...s, isInAdverseMedia: true }, c] },
  { name: 'isInInternalList', add: (s, c) => [{ ...s, isInInternalList: true }, c] },
  { name: 'doesCashDominate', add: (s, c) => [{ ...s, doesCashDominate: true }, c] },
  { name: 'BLACK', add: (s, c) => [{ ...s, listPurpose: 'BLACK' }, c] },
  {
    name: 'payment to KP',
    add: (s, c) => [{ ...s, listPaymentCountry: [...(s.listPaymentCountry ?? []), { country: 'KP' }] }, c],
  },
  {
    name: 'activity in NG',
    add: (s, c) => [
      { ...s, listCountryOfActivity: [...(s.listCountryOfActivity ?? []), { country: 'NG' }] },
      c,
    ],
  },
  {
    name: 'CASINO activity',
    add: (s, c) => [{ ...s, listActivity: [...(s.listActivity ?? []), { activityType: 'CASINO' }] }, c],
  },
  {
    name: 'non-face-to-face',
    add: (s, c) => [
      {
        ...s,
        listIntroductionSource: [
          ...(s.listIntroductionSource ?? []),
          { introductionSource: 'NON_FACE_TO_FACE' },
        ],
      },
      c,
    ],
  },
  {
    name: 'confirmed sanctions match',
    add: (s, c) => [
      s,
      { ...c, screening: { ...c.screening, SANCTIONS: { matched: true, confirmed: true } } },
    ],
  },
  {
    name: 'PEP director',
    add: (s, c) => [
      {
        ...s,
        listRelatedEntity: [
          ...(s.listRelatedEntity ?? []),
          { entityType: 'INDIVIDUAL', relationType: 'DIRECTOR', isPEP: true },
        ],
      },
      c,
    ],
  },
];

function cases(): Array<[string, RiskMatrix, fc.Arbitrary<RiskSubject>]> {
  return [
    ['persons', persons, personArb],
    ['organizations', organizations, organizationArb],
  ];
}

describe.each(cases())('properties of the DEMO %s matrix', (_name, matrix, subjectArb) => {
  it('never throws on generated records and always returns a consistent assessment', () => {
    fc.assert(
      fc.property(subjectArb, contextArb, (subject, ctx) => {
        const assessment = evaluateRisk(subject, matrix, ctx);
        expect(assessment.score).toBeGreaterThanOrEqual(0);
        expect(assessment.score).toBeLessThanOrEqual(100);
        expect(Math.round(assessment.score * 100) / 100).toBe(assessment.score);
        expect(isRiskLevel(assessment.level)).toBe(true);
        expect(levelRank(assessment.level)).toBeGreaterThanOrEqual(levelRank(assessment.scoreLevel));
        expect(assessment.scoreLevel).toBe(levelForScore(assessment.score, matrix.thresholds));
      }),
      params,
    );
  });

  it('never throws on records with fields of the wrong type', () => {
    const junk = fc.dictionary(
      fc.constantFrom(
        ...Object.keys(common),
        'listRelatedEntity',
        'establishmentDate',
        'citizenshipCountry',
        'initialDepositAmount',
      ),
      fc.anything(),
    );
    fc.assert(
      fc.property(junk, fc.anything(), (fields, today) => {
        const assessment = evaluateRisk({ ...(fields as RiskSubject), entityType: undefined }, matrix, {
          today,
        } as RiskContext);
        expect(isRiskLevel(assessment.level)).toBe(true);
      }),
      params,
    );
  });

  it.each(indicators.map((indicator) => [indicator.name, indicator] as const))(
    'adding the risk indicator "%s" never lowers the score or the level',
    (_indicator, indicator) => {
      fc.assert(
        fc.property(subjectArb, contextArb, (subject, ctx) => {
          const before = evaluateRisk(subject, matrix, ctx);
          const [riskier, riskierContext] = indicator.add(subject, ctx);
          const after = evaluateRisk(riskier, matrix, riskierContext);
          expect(after.score).toBeGreaterThanOrEqual(before.score);
          expect(levelRank(after.level)).toBeGreaterThanOrEqual(levelRank(before.level));
        }),
        { ...params, numRuns: 150 },
      );
    },
  );

  it('reaches every level', () => {
    const reached = new Set<RiskLevel>();
    for (const [subject, ctx] of fc.sample(fc.tuple(subjectArb, contextArb), { seed: SEED, numRuns: 3000 })) {
      reached.add(evaluateRisk(subject, matrix, ctx).level);
    }
    expect([...reached].sort((a, b) => levelRank(a) - levelRank(b))).toEqual([...RISK_LEVELS]);
  });
});

describe('no single factor dominates', () => {
  // Each mutation touches the inputs of one factor of the persons matrix only.
  const singleFactorChange: fc.Arbitrary<RiskSubject> = fc.oneof(
    country.map((value) => ({ citizenshipCountry: value })),
    country.map((value) => ({ permanentResidenceCountry: value })),
    countryList.map((value) => ({ listCountryOfActivity: value })),
    countryList.map((value) => ({ listPaymentCountry: value })),
    countryList.map((value) => ({ listCountryOfTaxPayment: value })),
    fc.constant({ isFamilyPEP: true }),
    fc.constant({ isInAdverseMedia: true }),
    fc.constant({ isInInternalList: true }),
    fc.constant({ doesCashDominate: true }),
    common.listActivity.map((value) => ({ listActivity: value })),
    common.listOrderedService.map((value) => ({ listOrderedService: value })),
    common.listIntroductionSource.map((value) => ({ listIntroductionSource: value })),
    common.listIncomeSource.map((value) => ({ listIncomeSource: value })),
    common.listDeclaredTurnover.map((value) => ({ listDeclaredTurnover: value })),
    fc.constantFrom('1', '7', '8').map((value) => ({ listSourceOfWealth: [{ code: value }] })),
  );

  it('one factor alone lifts a minimal-risk person by at most the weight cap', () => {
    const baseline = evaluateRisk(minimalRiskPerson(), persons, { today: TODAY });
    const cap = persons.scoring.maxFactorWeightShare * 100;
    fc.assert(
      fc.property(singleFactorChange, (change) => {
        const assessment = evaluateRisk({ ...minimalRiskPerson(), ...change }, persons, { today: TODAY });
        const changed = assessment.factors.filter((factor, i) => factor.score !== baseline.factors[i]?.score);
        expect(changed.length).toBeLessThanOrEqual(1);
        expect(assessment.score - baseline.score).toBeLessThanOrEqual(cap + 0.01);
        expect(levelRank(assessment.scoreLevel)).toBeLessThanOrEqual(
          levelRank(levelForScore(baseline.score + cap, persons.thresholds)),
        );
      }),
      params,
    );
  });
});
