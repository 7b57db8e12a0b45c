import { loadBundledMatrices, type RiskMatrix } from '@crs/risk-engine';
import { activateMatrix, matrixFor, matrixSetOf, servesCustomer } from './matrix-set';

const [persons, organizations] = loadBundledMatrices() as [RiskMatrix, RiskMatrix];
const version = (m: RiskMatrix, v: number, extra: Partial<RiskMatrix> = {}): RiskMatrix => ({
  ...structuredClone(m),
  version: v,
  ...extra,
});

describe('matrix set', () => {
  const base = matrixSetOf([persons, organizations]);

  it('selects by business unit and category', () => {
    expect(matrixFor(base, 'DEMO', 'IND')?.matrixId).toBe('demo-persons');
    expect(matrixFor(base, 'DEMO', 'ORG')?.matrixId).toBe('demo-organizations');
    expect(matrixFor(base, 'DEMO', undefined)).toBeUndefined();
    expect(matrixFor(base, 'OTHER', 'IND')).toBeUndefined();
  });

  it('an activation replaces the version of its matrix, also with a lower one (rollback)', () => {
    const v2 = activateMatrix(base, version(persons, 2));
    expect(matrixFor(v2, 'DEMO', 'IND')?.version).toBe(2);
    expect(v2.size).toBe(2);
    expect(matrixFor(activateMatrix(v2, persons), 'DEMO', 'IND')?.version).toBe(1);
    // The set is immutable.
    expect(matrixFor(base, 'DEMO', 'IND')?.version).toBe(1);
  });

  it('an activation of another business unit extends the set', () => {
    const set = activateMatrix(base, version(persons, 1, { businessUnit: 'BANK2' }));
    expect(set.size).toBe(3);
    expect(matrixFor(set, 'BANK2', 'IND_OCCASIONAL')?.businessUnit).toBe('BANK2');
  });

  it('knows which customers a matrix serves, a `*` matrix only the categories nobody else names', () => {
    const fallback = version(persons, 1, {
      matrixId: 'demo-fallback',
      riskManagementCategories: ['*'],
      entityTypes: ['INDIVIDUAL'],
    });
    const set = activateMatrix(base, fallback);
    expect(servesCustomer(set, persons, { businessUnit: 'DEMO', riskManagementCategory: 'IND' })).toBe(true);
    expect(servesCustomer(set, persons, { businessUnit: 'DEMO', riskManagementCategory: 'ORG' })).toBe(false);
    expect(servesCustomer(set, persons, { businessUnit: 'OTHER', riskManagementCategory: 'IND' })).toBe(
      false,
    );
    expect(servesCustomer(set, fallback, { businessUnit: 'DEMO', riskManagementCategory: 'LEAD_X' })).toBe(
      true,
    );
    expect(servesCustomer(set, fallback, { businessUnit: 'DEMO', riskManagementCategory: 'IND' })).toBe(
      false,
    );
    // A version that is no longer the active one serves nobody.
    expect(
      servesCustomer(activateMatrix(set, version(persons, 2)), persons, {
        businessUnit: 'DEMO',
        riskManagementCategory: 'IND',
      }),
    ).toBe(false);
  });
});
