import { AuthError, bearerChallenge } from './AuthError';

/** The token is valid but lacks the scope the operation needs (403, `error="insufficient_scope"`). */
export class AuthForbiddenScopeError extends AuthError {
  readonly code = 'AUTH_FORBIDDEN_SCOPE';
  readonly httpStatus = 403;
  readonly requiredScope: string;

  constructor(requiredScope: string) {
    super(
      `The access token lacks the required scope ${requiredScope}`,
      bearerChallenge({
        error: 'insufficient_scope',
        error_description: 'The access token lacks the required scope',
        scope: requiredScope,
      }),
    );
    this.requiredScope = requiredScope;
  }
}
