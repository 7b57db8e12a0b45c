import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { AuthError } from '@crs/auth';
import { ErrorCodes, type FieldError } from '@crs/contracts';
import type { Logger } from '@crs/runtime';
import { ApiError } from './api-error';

/** What any thrown error answers: status, code, description, field errors and headers. */
export interface HttpFailure {
  status: number;
  code: string;
  message: string;
  errors?: FieldError[];
  headers: Readonly<Record<string, string>>;
}

export interface HttpFailureOptions {
  logger: Logger;
  /** Retry-After of a 503 for a database that cannot be reached. */
  retryAfterSeconds: number;
  /** Logged with a database that cannot be reached or an unknown error: request id and route, never the body. */
  context?: Record<string, unknown>;
}

function bulkWriteErrors(err: MongoBulkWriteError): unknown[] {
  const list = (err as { writeErrors?: unknown }).writeErrors;
  return Array.isArray(list) ? list : list ? [list] : [];
}

/**
 * The database is unreachable (e.g. while it restarts): a transient refusal the client retries, like a
 * broker that did not acknowledge; the request stored nothing. A client being reconnected by the
 * MongoWatchdog fails its in-flight operations with "Topology is closed" (found by the long fault run:
 * 16 imports and 28 archive requests answered 500), and a connection lost in the middle of an insertMany
 * comes back as a bulk write error without write errors (57 imports answered 500).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoNotConnectedError ||
    (err instanceof MongoBulkWriteError && bulkWriteErrors(err).length === 0)
  );
}

const failure = (status: number, code: string, message: string): HttpFailure => ({
  status,
  code,
  message,
  headers: {},
});

/**
 * The one mapping of a thrown error to HTTP: coded API errors and auth errors answer their own status,
 * a database that cannot be reached is a 503 with Retry-After, body-parser errors are coded
 * (413, 400 MALFORMED_JSON, 415, other client errors 400 V001); anything else is a 500 that is logged.
 */
export function httpFailure(err: unknown, options: HttpFailureOptions): HttpFailure {
  const { logger, retryAfterSeconds, context = {} } = options;
  if (isDatabaseUnavailable(err)) {
    logger.warn({ ...context, error: (err as Error).name }, 'database unavailable');
    return {
      ...failure(
        503,
        ErrorCodes.ServiceUnavailable,
        'The database is unavailable; nothing was accepted. Retry later.',
      ),
      headers: { 'retry-after': String(retryAfterSeconds) },
    };
  }
  if (err instanceof ApiError)
    return {
      status: err.httpStatus,
      code: err.code,
      message: err.message,
      errors: err.fieldErrors,
      headers: err.headers,
    };
  if (err instanceof AuthError)
    return {
      ...failure(err.httpStatus, err.code, err.message),
      headers: err.wwwAuthenticate ? { 'www-authenticate': err.wwwAuthenticate } : {},
    };
  // body-parser's errors (express.json) carry a type and a status.
  const e = err as { type?: string; status?: number; statusCode?: number } | undefined;
  if (e?.type === 'entity.too.large')
    return failure(413, ErrorCodes.PayloadTooLarge, 'Request body is larger than the configured limit');
  if (e?.type === 'entity.parse.failed')
    return failure(400, ErrorCodes.MalformedJson, 'Request body is not valid JSON');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported')
    return failure(415, ErrorCodes.UnsupportedMediaType, 'Unsupported content encoding or charset');
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status < 500)
    return failure(status, ErrorCodes.ValidationFailed, 'Bad request');
  logger.error({ err, ...context }, 'unhandled error');
  return failure(500, ErrorCodes.InternalError, 'Processing failed');
}
