import { CodedError } from '@crs/runtime';
import type { FieldError } from '@crs/contracts';

/** An error the screening API answers with a given status; formatted by the error middleware. */
export class ScreeningApiError extends CodedError {
  constructor(
    code: string,
    readonly httpStatus: number,
    message: string,
    readonly fieldErrors?: FieldError[],
  ) {
    super(code, message);
  }
}

/** The query or body has field errors (V001 with one entry per field, like the ingress). */
export class ScreeningRequestInvalidError extends ScreeningApiError {
  constructor(fieldErrors: FieldError[]) {
    super('V001', 400, fieldErrors.map((e) => e.message).join('; '), fieldErrors);
  }
}

/** A decision names a hit the customer's last screening of that list did not produce. */
export class ScreeningHitNotFoundError extends ScreeningApiError {
  constructor() {
    super(
      'SCREENING_HIT_NOT_FOUND',
      404,
      'The last screening of this customer against this list has no hit on this entry',
    );
  }
}

export class ScreeningRouteNotFoundError extends ScreeningApiError {
  constructor() {
    super('NOT_FOUND', 404, 'Not Found');
  }
}

/** Problem of one field: `V001.<field>.<PROBLEM>`, as the ingress builds its codes. */
export function fieldError(path: string, problem: string, message: string): FieldError {
  return { path, code: `V001.${path}.${problem}`, message };
}
