import { AuthError, bearerChallenge } from './AuthError';

/**
 * The token is valid but does not grant the business unit the request addresses (403). The business
 * unit comes from the request, so it is kept out of the header, where it could break the quoting.
 */
export class AuthForbiddenBusinessUnitError extends AuthError {
  readonly code = 'AUTH_FORBIDDEN_BUSINESS_UNIT';
  readonly httpStatus = 403;
  readonly businessUnit: string;

  constructor(businessUnit: string) {
    super(
      `The access token does not grant business unit ${JSON.stringify(businessUnit)}`,
      bearerChallenge({
        error: 'insufficient_scope',
        error_description: 'The access token does not grant this business unit',
      }),
    );
    this.businessUnit = businessUnit;
  }
}
