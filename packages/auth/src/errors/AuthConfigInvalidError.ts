/** The verifier or key store was configured wrongly; raised at boot, never per request. */
export class AuthConfigInvalidError extends Error {
  readonly code = 'AUTH_CONFIG_INVALID';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AuthConfigInvalidError';
  }
}
