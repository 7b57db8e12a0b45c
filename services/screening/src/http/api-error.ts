import { ErrorCodes, type FieldError } from '@crs/contracts';
import { ApiError, RequestInvalidError } from '@crs/http';

/** The query or body has field errors: V001 with one entry per field, the description their messages. */
export class ScreeningRequestInvalidError extends RequestInvalidError {
  constructor(fieldErrors: FieldError[]) {
    super(ErrorCodes.ValidationFailed, fieldErrors.map((e) => e.message).join('; '), fieldErrors);
  }
}

/** A decision names a hit the customer's last screening of that list did not produce. */
export class ScreeningHitNotFoundError extends ApiError {
  constructor() {
    super(
      ErrorCodes.ScreeningHitNotFound,
      404,
      'The last screening of this customer against this list has no hit on this entry',
    );
  }
}
