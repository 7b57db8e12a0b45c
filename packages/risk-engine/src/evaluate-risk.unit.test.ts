import { evaluateRisk, type Assessment, type FactorAssessment } from './evaluate-risk';
import { demoMatrices, minimalRiskPerson, TODAY } from './matrix.fixtures';
import { RiskMatrixEntityTypeUnsupportedError } from './risk-matrix-entity-type-unsupported-error';
import type { RiskContext, RiskSubject } from './risk-subject';

const { persons, organizations } = demoMatrices();
const context: RiskContext = { today: TODAY };

function factorOf(assessment: Assessment, id: string): FactorAssessment {
  const found = assessment.factors.find((factor) => factor.id === id);
  if (!found) throw new Error(`factor ${id} missing`);
  return found;
}

function person(extra: RiskSubject, ctx: RiskContext = context): Assessment {
  return evaluateRisk({ entityType: 'INDIVIDUAL', firstName: 'A', lastName: 'B', ...extra }, persons, ctx);
}

function company(extra: RiskSubject, ctx: RiskContext = context): Assessment {
  return evaluateRisk({ entityType: 'ORGANIZATION', title: 'Acme UAB', ...extra }, organizations, ctx);
}

describe('evaluateRisk: the assessment', () => {
  it('identifies the matrix, weights the factors to one and sums the contributions', () => {
    const assessment = person({ citizenshipCountry: 'IR', doesCashDominate: true });
    expect(assessment.matrixId).toBe('demo-persons');
    expect(assessment.matrixVersion).toBe(1);
    const weights = assessment.factors.reduce((sum, factor) => sum + factor.weight, 0);
    expect(weights).toBeCloseTo(1, 3);
    const contributions = assessment.factors.reduce((sum, factor) => sum + factor.contribution, 0);
    expect(Math.abs(contributions - assessment.score)).toBeLessThanOrEqual(0.01 * assessment.factors.length);
    // 100 x 8/118 (nationality) + 80 x 6/118 (cash)
    expect(assessment.score).toBe(10.85);
  });

  it('records a factor without data as not applicable, with no contribution', () => {
    const assessment = person({});
    expect(assessment.score).toBe(0);
    expect(assessment.level).toBe('NONE');
    expect(assessment.factors.every((factor) => !factor.applicable && factor.contribution === 0)).toBe(true);
    expect(factorOf(assessment, 'PEP').explanation).toBe('no isPEP and no PEP screening result');
  });

  it('ignores values of the wrong type instead of failing', () => {
    const junk = { isPEP: 'yes', listActivity: 'CASINO', listPaymentCountry: [null, 7, { country: 42 }] };
    const assessment = person(junk as unknown as RiskSubject);
    expect(assessment.score).toBe(0);
    expect(factorOf(assessment, 'PEP').applicable).toBe(false);
  });

  it('is deterministic', () => {
    const subject = { ...minimalRiskPerson(), isPEP: true, listPaymentCountry: [{ country: 'NG' }] };
    expect(evaluateRisk(subject, persons, context)).toEqual(evaluateRisk(subject, persons, context));
  });

  it('throws a coded error when the matrix does not assess the entity type', () => {
    const run = () => evaluateRisk({ entityType: 'ORGANIZATION', title: 'Acme' }, persons, context);
    expect(run).toThrow(RiskMatrixEntityTypeUnsupportedError);
    expect(run).toThrow(expect.objectContaining({ code: 'RISK_MATRIX_ENTITY_TYPE_UNSUPPORTED' }));
  });

  it('takes the entity type from a single-type matrix when the record omits it', () => {
    expect(evaluateRisk({ firstName: 'A', lastName: 'B' }, persons, context).entityType).toBe('INDIVIDUAL');
  });
});

describe('evaluateRisk: country factors', () => {
  it('normalises alpha-3 and lower-case codes and rates by the lists the country is on', () => {
    const nationality = factorOf(
      person({ citizenshipCountry: 'irn', birthCountry: 'LTU' }),
      'NATIONALITY_COUNTRY',
    );
    expect(nationality.score).toBe(100);
    expect(nationality.inputValue).toEqual([
      {
        source: 'citizenshipCountry',
        value: 'irn',
        code: 'IR',
        score: 100,
        lists: ['FATF_CALL_FOR_ACTION', 'EU_HIGH_RISK_THIRD_COUNTRY'],
      },
      { source: 'birthCountry', value: 'LTU', code: 'LT', score: 5, lists: [] },
    ]);
    expect(nationality.explanation).toBe(
      'highest country risk 100 from citizenshipCountry: IR is on FATF_CALL_FOR_ACTION, EU_HIGH_RISK_THIRD_COUNTRY',
    );
  });

  it('reads second citizenship, residence, activity, payment and tax countries', () => {
    const assessment = person({
      secondCitizenshipCountry: 'VE',
      permanentResidenceCountry: 'PA',
      listCountryOfActivity: [{ country: 'DE' }, { country: 'MM' }],
      listPaymentCountry: [
        { country: 'FR', turnoverDirection: 'OUT' },
        { country: 'BG', turnoverDirection: 'IN' },
      ],
      listCountryOfTaxPayment: [{ country: 'YE' }],
    });
    expect(factorOf(assessment, 'NATIONALITY_COUNTRY').score).toBe(60);
    expect(factorOf(assessment, 'RESIDENCE_COUNTRY').score).toBe(75);
    expect(factorOf(assessment, 'ACTIVITY_COUNTRIES').score).toBe(100);
    expect(factorOf(assessment, 'PAYMENT_COUNTRIES').score).toBe(60);
    expect(factorOf(assessment, 'TAX_COUNTRIES').score).toBe(75);
  });

  it('scores an unrecognised code with the unknown-country score', () => {
    const residence = factorOf(person({ permanentResidenceCountry: 'Atlantis' }), 'RESIDENCE_COUNTRY');
    expect(residence.score).toBe(50);
    expect(residence.explanation).toContain('unrecognised country code "Atlantis"');
  });

  it('reads the registration country of an organization', () => {
    expect(factorOf(company({ registrationCountry: 'KP' }), 'REGISTRATION_COUNTRY').score).toBe(100);
    expect(factorOf(company({ registrationCountry: 'LT' }), 'REGISTRATION_COUNTRY').score).toBe(5);
  });
});

describe('evaluateRisk: flag, code, band and list factors', () => {
  it('scores PEP and family PEP flags', () => {
    expect(factorOf(person({ isPEP: true }), 'PEP').score).toBe(100);
    expect(factorOf(person({ isPEP: false }), 'PEP')).toMatchObject({ score: 0, applicable: true });
    expect(factorOf(person({ isFamilyPEP: true }), 'FAMILY_PEP').score).toBe(70);
  });

  it('scores the highest-risk activity code, case-insensitively, with a default for unknown codes', () => {
    const activity = factorOf(
      person({ listActivity: [{ activityType: 'retail' }, { activityType: 'Casino' }] }),
      'ACTIVITY',
    );
    expect(activity).toMatchObject({ score: 90, inputValue: ['RETAIL', 'CASINO'] });
    expect(factorOf(person({ listActivity: [{ activityType: 'BEEKEEPING' }] }), 'ACTIVITY')).toMatchObject({
      score: 15,
      explanation: 'highest code BEEKEEPING: score 15 (code not in the table, default)',
    });
  });

  it('scores cash dominance', () => {
    expect(factorOf(person({ doesCashDominate: true }), 'CASH').score).toBe(80);
  });

  it('scores the largest declared turnover by band, the band bound belonging to the next band', () => {
    const turnover = (to: number) =>
      factorOf(person({ listDeclaredTurnover: [{ from: 0, to }] }), 'DECLARED_TURNOVER');
    expect(turnover(4999).score).toBe(0);
    expect(turnover(5000).score).toBe(20);
    expect(turnover(100000).score).toBe(80);
    const fromOnly = factorOf(
      person({ listDeclaredTurnover: [{ from: 30000 }, { from: 0, to: 1000 }] }),
      'DECLARED_TURNOVER',
    );
    expect(fromOnly).toMatchObject({ inputValue: 30000, score: 50 });
  });

  it('scores income sources and source-of-wealth codes', () => {
    expect(
      factorOf(person({ listIncomeSource: [{ incomeSourceType: 'DIVIDENDS' }] }), 'INCOME_SOURCE').score,
    ).toBe(20);
    expect(factorOf(person({ listSourceOfWealth: [{ code: '7' }] }), 'SOURCE_OF_WEALTH').score).toBe(80);
  });

  it('scores ordered services and the introduction channel', () => {
    expect(
      factorOf(person({ listOrderedService: [{ serviceType: 'PRIVATE_BANKING' }] }), 'PRODUCTS').score,
    ).toBe(60);
    const channel = factorOf(
      person({ listIntroductionSource: [{ introductionSource: 'NON_FACE_TO_FACE' }] }),
      'CHANNEL',
    );
    expect(channel.score).toBe(60);
  });

  it('scores list purpose BLACK high and WHITE at zero', () => {
    expect(factorOf(person({ listPurpose: 'BLACK' }), 'LIST_PURPOSE').score).toBe(100);
    expect(factorOf(person({ listPurpose: 'WHITE' }), 'LIST_PURPOSE')).toMatchObject({
      score: 0,
      applicable: true,
    });
  });

  it('scores legal form, multi-layer structure, listing and regulation, and licensing of organizations', () => {
    expect(factorOf(company({ legalForm: 'TRUST' }), 'LEGAL_FORM').score).toBe(70);
    expect(factorOf(company({ hasMultiLayerStructure: true }), 'OWNERSHIP_STRUCTURE').score).toBe(80);
    expect(factorOf(company({ isListed: true, isRegulated: true }), 'LISTING_AND_REGULATION').score).toBe(0);
    expect(factorOf(company({ isListed: true, isRegulated: false }), 'LISTING_AND_REGULATION')).toMatchObject(
      {
        score: 30,
        explanation: 'isRegulated is false: score 30',
      },
    );
    expect(factorOf(company({ isLicenseRequired: true }), 'LICENSING').score).toBe(50);
  });

  it('derives business age from establishmentDate and the given today', () => {
    const age = (establishmentDate: string, today = TODAY) =>
      factorOf(company({ establishmentDate }, { today }), 'BUSINESS_AGE');
    expect(age('2025-01-10')).toMatchObject({ inputValue: 0, score: 70 });
    expect(age('2022-06-14')).toMatchObject({ inputValue: 2, score: 40 });
    expect(age('2022-06-13')).toMatchObject({ inputValue: 3, score: 20 });
    expect(age('2001-02-03')).toMatchObject({ inputValue: 24, score: 0 });
    expect(age('2001-02-03', '1999-01-01').applicable).toBe(false);
    expect(age('2001-02-30').applicable).toBe(false);
  });
});

describe('evaluateRisk: screening factors', () => {
  const sanctions = (subject: RiskSubject, screening: RiskContext['screening']) =>
    factorOf(person(subject, { today: TODAY, screening }), 'SANCTIONS');

  it('combines the record flag with the screening result, the higher one counting', () => {
    expect(sanctions({ isSanctioned: true }, { SANCTIONS: { matched: false } }).score).toBe(100);
    expect(sanctions({ isSanctioned: false }, { SANCTIONS: { matched: true, confirmed: true } }).score).toBe(
      100,
    );
  });

  it('scores an unreviewed match as potential and a dismissed one as no match', () => {
    expect(sanctions({}, { SANCTIONS: { matched: true, topScore: 0.93 } })).toMatchObject({
      score: 70,
      explanation: 'SANCTIONS screening POTENTIAL, top score 0.93: score 70',
    });
    expect(sanctions({}, { SANCTIONS: { matched: true, confirmed: false } }).score).toBe(0);
    expect(sanctions({}, { SANCTIONS: { matched: false } })).toMatchObject({ score: 0, applicable: true });
  });

  it('scores adverse media and internal lists from flags and screening', () => {
    const assessment = person(
      { isInAdverseMedia: true },
      { today: TODAY, screening: { INTERNAL_LIST: { matched: true } } },
    );
    expect(factorOf(assessment, 'ADVERSE_MEDIA').score).toBe(80);
    expect(factorOf(assessment, 'INTERNAL_LIST').score).toBe(50);
  });
});

describe('evaluateRisk: related entities', () => {
  it('assesses each related entity with the RELATED_ENTITY factors of its own entity type', () => {
    const assessment = company({
      listRelatedEntity: [
        {
          entityType: 'INDIVIDUAL',
          relationType: 'DIRECTOR',
          firstName: 'Jonas',
          lastName: 'Jonaitis',
          country: 'LT',
        },
        {
          entityType: 'ORGANIZATION',
          relationType: 'OWNER',
          title: 'Holdco',
          registrationCountry: 'PA',
          share: 60,
        },
      ],
    });
    const [director, owner] = assessment.relatedEntities;
    expect(director?.factors.map((factor) => factor.id)).toEqual([
      'RELATED_NATIONALITY_COUNTRY',
      'RELATED_RESIDENCE_COUNTRY',
      'ACTIVITY_COUNTRIES',
      'ACTIVITY',
      'PEP',
      'SANCTIONS',
      'ADVERSE_MEDIA',
      'INTERNAL_LIST',
    ]);
    expect(owner?.factors.map((factor) => factor.id)).toContain('REGISTRATION_COUNTRY');
    expect(owner?.factors.map((factor) => factor.id)).not.toContain('OWNERSHIP_STRUCTURE');
    // docs/privacy.md: a person is named by key, never by name, in an assessment.
    expect(director).toMatchObject({ key: '#0', relationType: 'DIRECTOR' });
    expect(director).not.toHaveProperty('name');
    expect(JSON.stringify(assessment)).not.toContain('Jonaitis');
    expect(owner).toMatchObject({ relationType: 'OWNER', name: 'Holdco' });
  });

  it('takes the highest related risk, weighted by share', () => {
    const withPepOwner = (share: number | undefined) =>
      company({
        listRelatedEntity: [
          {
            entityType: 'INDIVIDUAL',
            relationType: 'OWNER',
            extId: 'p1',
            firstName: 'P',
            lastName: 'Q',
            isPEP: true,
            ...(share === undefined ? {} : { share }),
          },
          {
            entityType: 'INDIVIDUAL',
            relationType: 'DIRECTOR',
            firstName: 'L',
            lastName: 'M',
            country: 'LT',
          },
        ],
      });
    // A PEP is at least HIGH (floor), worth 80; full weight from 25% share, at least half weight below it.
    expect(factorOf(withPepOwner(50), 'RELATED_ENTITIES').score).toBe(80);
    expect(factorOf(withPepOwner(12.5), 'RELATED_ENTITIES').score).toBe(40);
    expect(factorOf(withPepOwner(1), 'RELATED_ENTITIES').score).toBe(40);
    expect(factorOf(withPepOwner(undefined), 'RELATED_ENTITIES').explanation).toBe(
      'highest related entity: OWNER p1 at HIGH x share weight 1.00 = 80.00',
    );
  });

  it('uses the screening results of a related entity by extId or by index', () => {
    const assessment = company(
      {
        listRelatedEntity: [
          { entityType: 'INDIVIDUAL', relationType: 'DIRECTOR', extId: 'd-1', firstName: 'A', lastName: 'B' },
          { entityType: 'INDIVIDUAL', relationType: 'DIRECTOR', firstName: 'C', lastName: 'D' },
        ],
      },
      {
        today: TODAY,
        relatedEntityScreening: {
          'd-1': { ADVERSE_MEDIA: { matched: true, confirmed: true } },
          '#1': { SANCTIONS: { matched: true, confirmed: true } },
        },
      },
    );
    expect(assessment.relatedEntities[0]?.factors.find((f) => f.id === 'ADVERSE_MEDIA')?.score).toBe(80);
    expect(assessment.relatedEntities[1]).toMatchObject({
      level: 'EXTREME',
      floorApplied: { id: 'SANCTIONS_CONFIRMED' },
    });
  });
});
