import { loadBundledMatrices } from '@crs/risk-engine';
import { CustomerPersonalFields, MemoryDataKeySource, encryptFieldsWith, sealFieldsWith } from '@crs/privacy';
import type { CustomerData } from '@crs/contracts';
import { assessRequest, type EvaluationRequest } from './assess-request';
import { matrixSetOf } from './matrix-set';

const matrices = matrixSetOf(loadBundledMatrices());
const today = '2025-06-13';

const person = (extra: Record<string, unknown> = {}): CustomerData => ({
  communicationNumber: 'c-1',
  businessUnit: 'DEMO',
  customerExtId: 'p-1',
  entityType: 'INDIVIDUAL',
  riskManagementCategory: 'IND',
  firstName: 'Ann',
  lastName: 'Example',
  citizenshipCountry: 'LT',
  ...extra,
});

const request = (
  customer: CustomerData | undefined,
  extra: Partial<EvaluationRequest> = {},
): EvaluationRequest => ({
  requestId: 'r-1',
  reason: 'IMPORT_EVALUATE',
  ...(customer ? { customer } : {}),
  ...extra,
});

describe('assessRequest', () => {
  it('raises a PEP with a grey-list citizenship to HIGH by the PEP floor and explains every factor', () => {
    const outcome = assessRequest(
      request(person({ isPEP: true, citizenshipCountry: 'BG' })),
      'DEMO',
      matrices,
      { today },
    );
    if (outcome.kind !== 'ASSESSED') throw new Error(outcome.message);
    const a = outcome.assessment;
    expect(a).toMatchObject({
      source: 'EVALUATE',
      level: 'HIGH',
      matrixId: 'demo-persons',
      matrixVersion: 1,
    });
    expect(a.explanation).toMatchObject({
      floorApplied: { id: 'PEP', level: 'HIGH' },
      scoreLevel: 'LOW',
      evaluatedOn: today,
    });
    const factors = a.explanation!.factors as Array<Record<string, unknown>>;
    expect(factors.length).toBeGreaterThan(5);
    for (const f of factors)
      expect(Object.keys(f)).toEqual(
        expect.arrayContaining(['id', 'inputValue', 'score', 'weight', 'contribution', 'applicable']),
      );
    expect(factors.find((f) => f.id === 'NATIONALITY_COUNTRY')).toMatchObject({
      score: 60,
      applicable: true,
    });
    // The sum of the contributions is the score (contributions are rounded each).
    const sum = factors.reduce((s, f) => s + (f.contribution as number), 0);
    expect(Math.abs(sum - a.score!)).toBeLessThan(0.05);
  });

  it('produces an explanation that survives JSON unchanged (registry and MongoDB carry it)', () => {
    const outcome = assessRequest(request(person({ isPEP: true })), 'DEMO', matrices, { today });
    if (outcome.kind !== 'ASSESSED') throw new Error('not assessed');
    expect(JSON.parse(JSON.stringify(outcome.assessment))).toEqual(outcome.assessment);
  });

  it('evaluates an organization with the organizations matrix', () => {
    const org: CustomerData = {
      communicationNumber: 'c-2',
      businessUnit: 'DEMO',
      customerExtId: 'o-1',
      entityType: 'ORGANIZATION',
      riskManagementCategory: 'ORG',
      title: 'Example UAB',
      registrationCountry: 'LT',
    };
    const outcome = assessRequest(request(org), 'DEMO', matrices, { today });
    expect(outcome).toMatchObject({
      kind: 'ASSESSED',
      assessment: { matrixId: 'demo-organizations', source: 'EVALUATE' },
    });
  });

  it('uses the screening summary and the internal-list purpose the decider sends', () => {
    const matched = assessRequest(
      request(person(), { screening: { SANCTIONS: { matched: true, hitCount: 1 } }, listPurpose: 'BLACK' }),
      'DEMO',
      matrices,
      { today },
    );
    const clean = assessRequest(
      request(person(), { screening: { SANCTIONS: { matched: false } } }),
      'DEMO',
      matrices,
      { today },
    );
    if (matched.kind !== 'ASSESSED' || clean.kind !== 'ASSESSED') throw new Error('not assessed');
    expect(matched.assessment.score!).toBeGreaterThan(clean.assessment.score!);
    expect(matched.assessment.level).toBe('HIGH');
    expect(matched.assessment.explanation).toMatchObject({ floorApplied: { id: 'BLACK_LISTED' } });
  });

  it('a reviewer-confirmed sanctions match reaches the SANCTIONS_CONFIRMED floor; a dismissed one scores as no match', () => {
    const assess = (confirmed?: boolean) => {
      const o = assessRequest(
        request(person(), {
          screening: {
            SANCTIONS: { matched: true, hitCount: 1, ...(confirmed === undefined ? {} : { confirmed }) },
          },
        }),
        'DEMO',
        matrices,
        { today },
      );
      if (o.kind !== 'ASSESSED') throw new Error('not assessed');
      return o.assessment;
    };
    const factor = (a: { explanation?: Record<string, unknown> }) =>
      (a.explanation!.factors as Array<{ id: string; inputValue: { screening: string } }>).find(
        (f) => f.id === 'SANCTIONS',
      )!.inputValue.screening;
    const confirmed = assess(true);
    expect(confirmed.level).toBe('EXTREME');
    expect(confirmed.explanation).toMatchObject({
      floorApplied: { id: 'SANCTIONS_CONFIRMED', level: 'EXTREME' },
    });
    expect(factor(confirmed)).toBe('CONFIRMED');
    expect(factor(assess())).toBe('POTENTIAL');
    expect(factor(assess(false))).toBe('DISMISSED');
    expect(assess(false).score!).toBeLessThan(assess().score!);
  });

  it('fails without a matrix for the business unit or category, unless a default level is configured', () => {
    expect(
      assessRequest(request(person({ businessUnit: 'OTHER' })), 'OTHER', matrices, { today }),
    ).toMatchObject({ kind: 'FAILED', reason: 'NO_MATRIX' });
    expect(
      assessRequest(request(person({ riskManagementCategory: 'LEAD_X' })), 'DEMO', matrices, { today }),
    ).toMatchObject({ kind: 'FAILED', reason: 'NO_MATRIX' });
    const fallback = assessRequest(request(person()), 'OTHER', matrices, { today, noMatrixLevel: 'MEDIUM' });
    expect(fallback).toMatchObject({
      kind: 'ASSESSED',
      fallback: true,
      assessment: { source: 'EVALUATE', level: 'MEDIUM', explanation: { reason: 'NO_MATRIX' } },
    });
    expect(fallback.kind === 'ASSESSED' && fallback.assessment.matrixId).toBeFalsy();
  });

  it('fails when the category names a matrix of the other entity type, and when there is no record', () => {
    expect(
      assessRequest(request(person({ riskManagementCategory: 'ORG' })), 'DEMO', matrices, { today }),
    ).toMatchObject({
      kind: 'FAILED',
      reason: 'ENTITY_TYPE_UNSUPPORTED',
    });
    expect(assessRequest(request(undefined), 'DEMO', matrices, { today })).toMatchObject({
      kind: 'FAILED',
      reason: 'NO_CUSTOMER',
    });
  });
});

describe('assessRequest and personal data (docs/privacy.md)', () => {
  it('gives the same assessment for the encrypted record as for the plain one: no factor reads a personal field', async () => {
    const key = await new MemoryDataKeySource().keyFor('DEMO:p-1');
    const address = (country: string) => ({
      addressType: 'RESIDENTIAL',
      country,
      city: 'Vilnius',
      streetAddress: 'Gedimino pr. 1',
      zipCode: '01103',
      region: 'Vilniaus',
      addressDetails: 'flat 3',
    });
    const plain = person({
      isPEP: true,
      birthDate: '1970-02-03',
      placeOfBirth: 'Kaunas',
      nationalCode: '37002030000',
      birthCountry: 'IR',
      residenceCountry: 'LT',
      initialDepositAccount: 'LT601010012345678901',
      listAddress: [address('LT'), address('PA')],
      listContact: [{ contactType: 'EMAIL', contactDetails: 'ann@example.com' }],
      listCountryOfTaxPayment: [{ country: 'LT', taxpayerNumber: '37002030000' }],
      listRelatedEntity: [
        {
          extId: 'r-1',
          entityType: 'INDIVIDUAL',
          relationType: 'DIRECTOR',
          firstName: 'Jonas',
          lastName: 'Jonaitis',
          birthDate: '1960-01-01',
          nationalCode: '36001010000',
          citizenshipCountry: 'RU',
          listAddress: [address('RU')],
        },
      ],
    });
    const encrypted = encryptFieldsWith(key, 'DEMO:p-1', plain, CustomerPersonalFields);
    expect(encrypted.firstName).toMatch(/^crs:enc:1:/);
    // The form the ingress publishes: sealed (decision 0054).
    const sealed = sealFieldsWith(key, 'DEMO:p-1', plain, CustomerPersonalFields);
    expect(sealed.firstName).toBe('crs:sealed:0');
    const a = assessRequest(request(plain), 'DEMO', matrices, { today });
    const b = assessRequest(request(encrypted), 'DEMO', matrices, { today });
    expect(a.kind).toBe('ASSESSED');
    expect(b).toEqual(a);
    expect(assessRequest(request(sealed), 'DEMO', matrices, { today })).toEqual(a);
    // Nor does the assessment carry a personal value: related persons are named by key.
    expect(JSON.stringify(a)).not.toMatch(/Jonaitis|Ann|Example|1970-02-03|37002030000/);
  });
});
