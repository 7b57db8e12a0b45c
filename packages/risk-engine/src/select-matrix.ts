import type { RiskMatrix } from './risk-matrix';

/**
 * The active matrix for a business unit and risk management category: among the matrices of the business
 * unit that list the category, the highest version; when none lists it, the highest version among those
 * that list `*`. Ties between matrix ids are broken by matrixId so that the choice is deterministic.
 */
export function selectMatrix(
  matrices: readonly RiskMatrix[],
  businessUnit: string,
  riskManagementCategory: string,
): RiskMatrix | undefined {
  const ofUnit = matrices.filter((matrix) => matrix.businessUnit === businessUnit);
  const pick = (candidates: RiskMatrix[]): RiskMatrix | undefined =>
    [...candidates].sort((a, b) => b.version - a.version || a.matrixId.localeCompare(b.matrixId))[0];
  return (
    pick(ofUnit.filter((matrix) => matrix.riskManagementCategories.includes(riskManagementCategory))) ??
    pick(ofUnit.filter((matrix) => matrix.riskManagementCategories.includes('*')))
  );
}
