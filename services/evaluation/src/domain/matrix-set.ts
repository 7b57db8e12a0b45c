import { selectMatrix, type RiskMatrix } from '@crs/risk-engine';

/**
 * The matrices the evaluation service chooses from, keyed by business unit and matrixId. Bundled
 * matrices are the initial set; each activation replaces the entry of its matrixId (so re-activating an
 * older version is a rollback) or adds a new one. Immutable: every change returns a new set.
 */
export type MatrixSet = ReadonlyMap<string, RiskMatrix>;

export function matrixKey(matrix: Pick<RiskMatrix, 'businessUnit' | 'matrixId'>): string {
  return `${matrix.businessUnit}/${matrix.matrixId}`;
}

export function matrixSetOf(matrices: readonly RiskMatrix[]): MatrixSet {
  let set: MatrixSet = new Map();
  for (const m of matrices) set = activateMatrix(set, m);
  return set;
}

export function activateMatrix(set: MatrixSet, matrix: RiskMatrix): MatrixSet {
  const next = new Map(set);
  next.set(matrixKey(matrix), matrix);
  return next;
}

/** The matrix that evaluates a customer of this business unit and category (engine rules: category, then `*`). */
export function matrixFor(
  set: MatrixSet,
  businessUnit: string,
  riskManagementCategory: string | undefined,
): RiskMatrix | undefined {
  return selectMatrix([...set.values()], businessUnit, riskManagementCategory ?? '');
}

/**
 * Whether `matrix` is the one that now evaluates a customer of this business unit and category: the
 * customers a matrix activation must re-evaluate. A `*` matrix serves only categories no other matrix names.
 */
export function servesCustomer(
  set: MatrixSet,
  matrix: Pick<RiskMatrix, 'businessUnit' | 'matrixId' | 'version'>,
  customer: { businessUnit: string; riskManagementCategory?: string | null },
): boolean {
  if (customer.businessUnit !== matrix.businessUnit) return false;
  const chosen = matrixFor(set, customer.businessUnit, customer.riskManagementCategory ?? undefined);
  return chosen?.matrixId === matrix.matrixId && chosen.version === matrix.version;
}
