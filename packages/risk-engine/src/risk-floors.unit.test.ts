import { evaluateRisk, levelForScore } from './evaluate-risk';
import { demoMatrices, fiveFlagMatrix, minimalRiskPerson, TODAY } from './matrix.fixtures';
import type { RiskContext, RiskSubject } from './risk-subject';

const { persons, organizations } = demoMatrices();

function personLevel(extra: RiskSubject, ctx: RiskContext = { today: TODAY }) {
  return evaluateRisk({ ...minimalRiskPerson(), ...extra }, persons, ctx);
}

describe('floors', () => {
  it('a minimal-risk person is NONE without any floor', () => {
    expect(personLevel({})).toMatchObject({ level: 'NONE', floorsMatched: [] });
    expect(personLevel({}).floorApplied).toBeUndefined();
  });

  it.each([
    [
      'confirmed sanctions match',
      {},
      { SANCTIONS: { matched: true, confirmed: true } },
      'EXTREME',
      'SANCTIONS_CONFIRMED',
    ],
    ['isSanctioned', { isSanctioned: true }, undefined, 'HIGH', 'SANCTIONED'],
    ['isPEP', { isPEP: true }, undefined, 'HIGH', 'PEP'],
    ['confirmed PEP screening', {}, { PEP: { matched: true, confirmed: true } }, 'HIGH', 'PEP'],
    ['isFamilyPEP', { isFamilyPEP: true }, undefined, 'MEDIUM', 'FAMILY_PEP'],
    ['listPurpose BLACK', { listPurpose: 'BLACK' }, undefined, 'HIGH', 'BLACK_LISTED'],
    [
      'a FATF call-for-action payment country',
      { listPaymentCountry: [{ country: 'PRK' }] },
      undefined,
      'HIGH',
      'FATF_CALL_FOR_ACTION_COUNTRY',
    ],
    [
      'residence in an EU high-risk third country',
      { permanentResidenceCountry: 'TT' },
      undefined,
      'HIGH',
      'EU_HIGH_RISK_THIRD_COUNTRY',
    ],
  ] as const)('%s sets the level to at least its floor', (_name, extra, screening, level, floorId) => {
    const assessment = personLevel(extra as RiskSubject, {
      today: TODAY,
      ...(screening ? { screening } : {}),
    });
    expect(assessment.level).toBe(level);
    expect(assessment.floorApplied?.id).toBe(floorId);
    expect(assessment.scoreLevel).not.toBe(level);
  });

  it('does not report a floor as applied when the score already reaches its level', () => {
    const assessment = personLevel({
      isFamilyPEP: true,
      doesCashDominate: true,
      listActivity: [{ activityType: 'CASINO' }],
      listOrderedService: [{ serviceType: 'CRYPTO_EXCHANGE' }],
      listIntroductionSource: [{ introductionSource: 'NON_FACE_TO_FACE' }],
      listDeclaredTurnover: [{ from: 0, to: 500000 }],
    });
    expect(assessment.scoreLevel).toBe('MEDIUM');
    expect(assessment.level).toBe('MEDIUM');
    expect(assessment.floorsMatched.map((floor) => floor.id)).toEqual(['FAMILY_PEP']);
    expect(assessment.floorApplied).toBeUndefined();
  });

  it('applies the highest matching floor', () => {
    const assessment = personLevel(
      { isPEP: true, isSanctioned: true },
      { today: TODAY, screening: { SANCTIONS: { matched: true, confirmed: true } } },
    );
    expect(assessment.level).toBe('EXTREME');
    expect(assessment.floorApplied).toEqual({
      id: 'SANCTIONS_CONFIRMED',
      level: 'EXTREME',
      reason: 'Confirmed sanctions match: the relationship may not proceed without a freeze and a report.',
    });
    expect(assessment.floorsMatched.map((floor) => floor.id)).toEqual([
      'SANCTIONS_CONFIRMED',
      'SANCTIONED',
      'PEP',
    ]);
  });

  it('raises an organization for a sanctioned or PEP director', () => {
    const company = (related: RiskSubject['listRelatedEntity']) =>
      evaluateRisk(
        { entityType: 'ORGANIZATION', title: 'Acme', registrationCountry: 'LT', listRelatedEntity: related },
        organizations,
        { today: TODAY },
      );
    expect(
      company([{ entityType: 'INDIVIDUAL', relationType: 'DIRECTOR', isSanctioned: true }]).floorApplied?.id,
    ).toBe('RELATED_SANCTIONED');
    expect(
      company([{ entityType: 'INDIVIDUAL', relationType: 'DIRECTOR', isPEP: true }]).floorApplied?.id,
    ).toBe('RELATED_PEP');
    expect(company([{ entityType: 'INDIVIDUAL', relationType: 'DIRECTOR', isPEP: false }]).level).toBe(
      'NONE',
    );
  });

  it('no weighting lowers a floor: a PEP with an otherwise minimal profile stays HIGH', () => {
    const assessment = personLevel({ isPEP: true });
    expect(assessment.scoreLevel).toBe('LOW');
    expect(assessment.level).toBe('HIGH');
  });
});

describe('thresholds', () => {
  const flags = (count: number): RiskSubject => {
    const fields = [
      'isPEP',
      'isInAdverseMedia',
      'isInInternalList',
      'doesCashDominate',
      'isLitigated',
    ] as const;
    return Object.fromEntries(fields.slice(0, count).map((field) => [field, true]));
  };

  it.each([
    [0, 'NONE'],
    [1, 'LOW'],
    [2, 'MEDIUM'],
    [3, 'HIGH'],
    [4, 'EXTREME'],
    [5, 'EXTREME'],
  ] as const)('%i flags score exactly 20 each and reach %s at the threshold', (count, level) => {
    const assessment = evaluateRisk(flags(count), fiveFlagMatrix(), { today: TODAY });
    expect(assessment.score).toBe(count * 20);
    expect(assessment.level).toBe(level);
  });

  it('a score 0.01 below a threshold stays on the level below', () => {
    const local = fiveFlagMatrix();
    (local.factors[2] as { flags: { whenTrue: number }[] }).flags[0]!.whenTrue = 99.95;
    const assessment = evaluateRisk({ isPEP: true, isInAdverseMedia: true, isInInternalList: true }, local, {
      today: TODAY,
    });
    expect(assessment.score).toBe(59.99);
    expect(assessment.level).toBe('MEDIUM');
  });

  it('levelForScore is inclusive at every threshold', () => {
    const { thresholds } = persons;
    expect(levelForScore(thresholds.LOW - 0.01, thresholds)).toBe('NONE');
    expect(levelForScore(thresholds.LOW, thresholds)).toBe('LOW');
    expect(levelForScore(thresholds.MEDIUM, thresholds)).toBe('MEDIUM');
    expect(levelForScore(thresholds.HIGH, thresholds)).toBe('HIGH');
    expect(levelForScore(thresholds.EXTREME, thresholds)).toBe('EXTREME');
    expect(levelForScore(100, thresholds)).toBe('EXTREME');
  });
});

describe('white-list relief', () => {
  const reliefMatrix = fiveFlagMatrix({
    scoring: { maxFactorWeightShare: 0.2, whiteListRelief: { scorePoints: 30, maxLevelsDown: 1 } },
  });

  it('lowers the score by at most the configured points and at most the configured number of levels', () => {
    const assessment = evaluateRisk(
      {
        listPurpose: 'WHITE',
        isPEP: true,
        isInAdverseMedia: true,
        isInInternalList: true,
        doesCashDominate: true,
      },
      reliefMatrix,
      { today: TODAY },
    );
    // 80 (EXTREME) - 30 = 50 (MEDIUM) would drop two levels; it stops at the HIGH threshold.
    expect(assessment.whiteListRelief).toMatchObject({ scoreBefore: 80, scoreAfter: 60 });
    expect(assessment).toMatchObject({ score: 60, level: 'HIGH' });
  });

  it('never goes below zero and leaves floors in force', () => {
    const withFloor = fiveFlagMatrix({
      scoring: reliefMatrix.scoring,
      floors: [{ id: 'PEP', level: 'HIGH', reason: 'PEP', when: { field: 'isPEP', equals: true } }],
    });
    const assessment = evaluateRisk({ listPurpose: 'WHITE', isPEP: true }, withFloor, { today: TODAY });
    expect(assessment.score).toBe(0);
    expect(assessment.level).toBe('HIGH');
    expect(assessment.floorApplied?.id).toBe('PEP');
  });

  it('does nothing without listPurpose WHITE', () => {
    const assessment = evaluateRisk({ isPEP: true }, reliefMatrix, { today: TODAY });
    expect(assessment.whiteListRelief).toBeUndefined();
    expect(assessment.score).toBe(20);
  });
});
