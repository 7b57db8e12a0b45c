import { CodedError } from '@crs/runtime';
import type { FieldError } from '@crs/contracts';

/** An error the API answers with a given status; thrown by routes, formatted by the error middleware. */
export class ApiError extends CodedError {
  constructor(
    code: string,
    readonly httpStatus: number,
    message: string,
    readonly fieldErrors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
  }
}

export class RequestInvalidError extends ApiError {
  constructor(code: string, message: string, fieldErrors?: FieldError[]) {
    super(code, 400, message, fieldErrors);
  }
}

export class ResourceNotFoundError extends ApiError {
  constructor(message = 'Not Found') {
    super('NOT_FOUND', 404, message);
  }
}

export class ServiceUnavailableError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(
      'SERVICE_UNAVAILABLE',
      503,
      'The request could not be stored durably; nothing was accepted. Retry later.',
      undefined,
      {
        'retry-after': String(retryAfterSeconds),
      },
    );
  }
}
