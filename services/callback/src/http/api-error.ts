import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { AuthError } from '@crs/auth';
import { ErrorCodes, errorBody, type ErrorBody, type FieldError } from '@crs/contracts';
import { CodedError } from '@crs/runtime';

/** An error the callback API answers with a given status; formatted by `answerForError`. */
export class CallbackApiError extends CodedError {
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
export class CallbackRequestInvalidError extends CallbackApiError {
  constructor(code: string, message: string, fieldErrors: FieldError[]) {
    super(code, 400, message, fieldErrors);
  }
}

export class CallbackRouteNotFoundError extends CallbackApiError {
  constructor() {
    super(ErrorCodes.NotFound, 404, 'Not Found');
  }
}

export class CallbackBodyInvalidError extends CallbackApiError {
  constructor(code: 'MALFORMED_JSON' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE', message: string) {
    super(code, code === 'PAYLOAD_TOO_LARGE' ? 413 : code === 'MALFORMED_JSON' ? 400 : 415, message);
  }
}

/** The API is not served yet: the service is starting (its store is not connected). */
export class CallbackApiStartingError extends CallbackApiError {
  constructor() {
    super(ErrorCodes.ServiceUnavailable, 503, 'The callback service is starting. Retry later.');
  }
}

export interface ApiAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

function bulkWriteErrors(err: MongoBulkWriteError): unknown[] {
  const list = (err as { writeErrors?: unknown }).writeErrors;
  return Array.isArray(list) ? list : list ? [list] : [];
}

/** The database cannot be reached: the same list as the ingress's error middleware. */
function databaseUnavailable(err: unknown): boolean {
  return (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoNotConnectedError ||
    (err instanceof MongoBulkWriteError && bulkWriteErrors(err).length === 0)
  );
}

/**
 * The one place where the callback API's errors become HTTP, in the ingress's shapes
 * (`{ errorCode, errorDescription, errors? }`): a database that cannot be reached is a 503 with
 * Retry-After, as the ingress answered these routes when it read the delivery log itself. `unknown`
 * is told about anything else (a 500).
 */
export function answerForError(
  err: unknown,
  retryAfterSeconds: number,
  unknown: (err: unknown) => void,
): ApiAnswer {
  const answer = (status: number, body: ErrorBody, headers: Record<string, string> = {}): ApiAnswer => ({
    status,
    body,
    headers,
  });
  if (databaseUnavailable(err))
    return answer(
      503,
      errorBody(
        ErrorCodes.ServiceUnavailable,
        'The database is unavailable; nothing was accepted. Retry later.',
      ),
      { 'retry-after': String(retryAfterSeconds) },
    );
  if (err instanceof CallbackApiError)
    return answer(
      err.httpStatus,
      errorBody(err.code, err.message, err.fieldErrors),
      err.httpStatus === 503 ? { 'retry-after': String(retryAfterSeconds) } : {},
    );
  if (err instanceof AuthError)
    return answer(
      err.httpStatus,
      errorBody(err.code, err.message),
      err.wwwAuthenticate ? { 'www-authenticate': err.wwwAuthenticate } : {},
    );
  unknown(err);
  return answer(500, errorBody(ErrorCodes.InternalError, 'Processing failed'));
}
