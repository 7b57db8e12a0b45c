/** A matrix document failed schema or semantic validation. */
export class RiskMatrixInvalidError extends Error {
  readonly code = 'RISK_MATRIX_INVALID';

  constructor(
    readonly matrixRef: string,
    readonly errors: readonly string[],
  ) {
    super(`risk matrix ${matrixRef} is invalid: ${errors.join('; ')}`);
    this.name = 'RiskMatrixInvalidError';
  }
}
