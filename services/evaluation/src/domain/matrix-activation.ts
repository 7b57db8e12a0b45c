import type { RiskMatrixActivated } from '@crs/contracts/types';
import { validateMatrix, type RiskMatrix } from '@crs/risk-engine';

export type ActivationCheck = { ok: true; matrix: RiskMatrix } | { ok: false; errors: string[] };

/**
 * The matrix an activation carries, validated (schema and semantic rules) and consistent with the
 * activation's own identity fields. Checked by the CLI before publishing and by the service on applying,
 * so a message written by another tool cannot slip an invalid matrix in.
 */
export function matrixOfActivation(activation: RiskMatrixActivated): ActivationCheck {
  const result = validateMatrix(structuredClone(activation.matrix));
  if (!result.ok) return result;
  const m = result.matrix;
  const errors: string[] = [];
  if (m.matrixId !== activation.matrixId)
    errors.push(`matrixId ${activation.matrixId} differs from the matrix's ${m.matrixId}`);
  if (m.version !== activation.version)
    errors.push(`version ${activation.version} differs from the matrix's ${m.version}`);
  if (m.businessUnit !== activation.businessUnit)
    errors.push(`businessUnit ${activation.businessUnit} differs from the matrix's ${m.businessUnit}`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, matrix: m };
}

export function activationOf(
  matrix: RiskMatrix,
  meta: { eventId: string; activatedAt: string; activatedBy?: string },
): RiskMatrixActivated {
  return {
    eventId: meta.eventId,
    type: 'RiskMatrixActivated',
    matrixId: matrix.matrixId,
    version: matrix.version,
    businessUnit: matrix.businessUnit,
    activatedAt: meta.activatedAt,
    ...(meta.activatedBy ? { activatedBy: meta.activatedBy } : {}),
    matrix,
  };
}
