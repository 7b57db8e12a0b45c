import { fiveFlagMatrix } from './matrix.fixtures';
import { selectMatrix } from './select-matrix';

describe('selectMatrix', () => {
  const m = (matrixId: string, version: number, businessUnit: string, categories: string[]) =>
    fiveFlagMatrix({ matrixId, version, businessUnit, riskManagementCategories: categories });
  const matrices = [
    m('ind', 1, 'BU1', ['IND']),
    m('ind', 3, 'BU1', ['IND', 'IND_OCCASIONAL']),
    m('ind', 2, 'BU1', ['IND']),
    m('any', 7, 'BU1', ['*']),
    m('ind', 9, 'BU2', ['IND']),
  ];

  it('picks the highest version for the business unit and category', () => {
    expect(selectMatrix(matrices, 'BU1', 'IND')).toMatchObject({ matrixId: 'ind', version: 3 });
    expect(selectMatrix(matrices, 'BU1', 'IND_OCCASIONAL')).toMatchObject({ matrixId: 'ind', version: 3 });
  });

  it('falls back to a * matrix of the business unit', () => {
    expect(selectMatrix(matrices, 'BU1', 'ORG')).toMatchObject({ matrixId: 'any', version: 7 });
  });

  it('returns undefined when nothing matches', () => {
    expect(selectMatrix(matrices, 'BU2', 'ORG')).toBeUndefined();
    expect(selectMatrix(matrices, 'BU3', 'IND')).toBeUndefined();
  });
});
