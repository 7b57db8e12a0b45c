import { AuthError, bearerChallenge } from './AuthError';

/**
 * The request carries no bearer token. Per RFC 6750 section 3.1 the challenge then names no error,
 * only the realm.
 */
export class AuthMissingTokenError extends AuthError {
  readonly code = 'AUTH_MISSING_TOKEN';
  readonly httpStatus = 401;

  constructor() {
    super('A bearer access token is required', bearerChallenge());
  }
}
