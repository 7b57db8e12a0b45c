/**
 * Base class for every error that carries a stable code. The mapping from code to HTTP status happens
 * only at the edge (the ingress error middleware); domain code never thinks in HTTP.
 */
export class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ConfigInvalidError extends CodedError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}
