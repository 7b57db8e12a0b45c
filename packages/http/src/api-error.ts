import { ErrorCodes, type FieldError } from '@crs/contracts';
import { CodedError } from '@crs/runtime';

/**
 * An error an HTTP API answers with a given status, field errors and headers: thrown by routes,
 * turned into the answer by `httpFailure` (and the adapters on it). A service's own errors extend it.
 */
export class ApiError extends CodedError {
  constructor(
    code: string,
    readonly httpStatus: number,
    message: string,
    readonly fieldErrors?: FieldError[],
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(code, message);
  }
}

/** The request does not pass validation: 400, usually V001 with one field error per problem. */
export class RequestInvalidError extends ApiError {
  constructor(code: string, message: string, fieldErrors?: FieldError[]) {
    super(code, 400, message, fieldErrors);
  }
}

/** No such route or resource: 404 NOT_FOUND. */
export class ResourceNotFoundError extends ApiError {
  constructor(message = 'Not Found') {
    super(ErrorCodes.NotFound, 404, message);
  }
}

/** A transient refusal (a broker or a store that did not answer): 503 with Retry-After; nothing was accepted. */
export class ServiceUnavailableError extends ApiError {
  constructor(
    retryAfterSeconds: number,
    message = 'The request could not be stored durably; nothing was accepted. Retry later.',
  ) {
    super(ErrorCodes.ServiceUnavailable, 503, message, undefined, {
      'retry-after': String(retryAfterSeconds),
    });
  }
}

/** The body is over the API's limit: 413 PAYLOAD_TOO_LARGE. */
export class PayloadTooLargeError extends ApiError {
  constructor(message = 'Request body is larger than the configured limit') {
    super(ErrorCodes.PayloadTooLarge, 413, message);
  }
}

/** The body is not JSON: 400 MALFORMED_JSON. */
export class MalformedJsonError extends ApiError {
  constructor(message = 'Request body is not valid JSON') {
    super(ErrorCodes.MalformedJson, 400, message);
  }
}

/** The content type, encoding or charset is not one the API reads: 415 UNSUPPORTED_MEDIA_TYPE. */
export class UnsupportedMediaTypeError extends ApiError {
  constructor(message: string) {
    super(ErrorCodes.UnsupportedMediaType, 415, message);
  }
}

/** The problem of one field: `V001.<path>.<PROBLEM>` (docs/error-codes.md). */
export function fieldError(path: string, problem: string, message: string): FieldError {
  return { path, code: `${ErrorCodes.ValidationFailed}.${path}.${problem}`, message };
}
