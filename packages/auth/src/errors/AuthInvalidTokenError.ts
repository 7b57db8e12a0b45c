import { AuthError, bearerChallenge } from './AuthError';

/** Why a token was rejected; safe to return to the caller because it reveals nothing about keys or claims. */
export type AuthInvalidTokenReason =
  | 'expired'
  | 'not_yet_valid'
  | 'bad_signature'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'malformed'
  | 'alg_not_allowed';

const descriptions: Readonly<Record<AuthInvalidTokenReason, string>> = {
  expired: 'The access token expired',
  not_yet_valid: 'The access token is not valid yet',
  bad_signature: 'The access token signature is not valid',
  wrong_issuer: 'The access token was issued by an untrusted issuer',
  wrong_audience: 'The access token is not meant for this service',
  malformed: 'The access token is malformed',
  alg_not_allowed: 'The access token signing algorithm is not allowed',
};

/** The bearer token failed verification (401, `error="invalid_token"`). */
export class AuthInvalidTokenError extends AuthError {
  readonly code = 'AUTH_INVALID_TOKEN';
  readonly httpStatus = 401;
  readonly reason: AuthInvalidTokenReason;

  constructor(reason: AuthInvalidTokenReason, options?: ErrorOptions) {
    const description = descriptions[reason];
    super(description, bearerChallenge({ error: 'invalid_token', error_description: description }), options);
    this.reason = reason;
  }
}
