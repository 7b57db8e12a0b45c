import { AuthError } from './AuthError';

/**
 * The verification keys could not be fetched (JWKS endpoint down, timed out or answering garbage).
 * That is our failure, not the caller's, so it is a 503 rather than a 401 that would make clients
 * throw away a good token.
 */
export class AuthKeysUnavailableError extends AuthError {
  readonly code = 'AUTH_KEYS_UNAVAILABLE';
  readonly httpStatus = 503;

  constructor(options?: ErrorOptions) {
    super('The token verification keys are unavailable', undefined, options);
  }
}
