/** The subject's entity type is not one the matrix assesses: the caller selected the wrong matrix. */
export class RiskMatrixEntityTypeUnsupportedError extends Error {
  readonly code = 'RISK_MATRIX_ENTITY_TYPE_UNSUPPORTED';

  constructor(
    readonly matrixId: string,
    readonly matrixVersion: number,
    readonly entityType: string,
  ) {
    super(`risk matrix ${matrixId} v${matrixVersion} does not assess entity type ${entityType}`);
    this.name = 'RiskMatrixEntityTypeUnsupportedError';
  }
}
