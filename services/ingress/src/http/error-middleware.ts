import type { ErrorRequestHandler, Request } from 'express';
import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import {
  ErrorCodes,
  batchBadRequestBody,
  batchNotFoundBody,
  batchProcessingFailedBody,
  errorBody,
  simplifiedInternalErrorBody,
  simplifiedNotFoundBody,
  simplifiedRejectionBody,
} from '@crs/contracts';
import { AuthError } from '@crs/auth';
import type { Logger } from '@crs/runtime';
import { ApiError } from './api-error';

type Style = 'single' | 'batch-validate' | 'batch-import' | 'simplified' | 'generic';

// Paths under a spec endpoint (e.g. /core-ws-rest/batch-customers/x) are that endpoint's "not found"
// case, so they answer in its section 7 shape too.
const under = (path: string, endpoint: string) => path === endpoint || path.startsWith(`${endpoint}/`);

function styleOf(req: Request): Style {
  if (req.path === '/core-ws-rest/customer' || req.path === '/core-ws-rest/customer/') return 'single';
  if (under(req.path, '/core-ws-rest/validate-batch-customers')) return 'batch-validate';
  if (under(req.path, '/core-ws-rest/batch-customers')) return 'batch-import';
  if (under(req.path, '/core-ws-rest/simplifiedCustomer')) return 'simplified';
  return 'generic';
}

function elapsed(req: Request): number {
  const started = (req as Request & { startedAt?: bigint }).startedAt;
  return started ? Math.round(Number(process.hrtime.bigint() - started) / 1e6) : 0;
}

interface Normalized {
  status: number;
  code: string;
  message: string;
  errors?: ApiError['fieldErrors'];
  headers: Record<string, string>;
}

function bulkWriteErrors(err: MongoBulkWriteError): unknown[] {
  const list = (err as { writeErrors?: unknown }).writeErrors;
  return Array.isArray(list) ? list : list ? [list] : [];
}

/** Body-parser and auth errors are translated to coded errors; anything unknown is a 500 that is logged. */
function normalize(err: unknown, logger: Logger, req: Request, retryAfterSeconds: number): Normalized {
  // The database is unreachable (e.g. while it restarts): a transient refusal the client retries,
  // like a broker that did not acknowledge; the request reserved and published nothing.
  // A client being reconnected by the MongoWatchdog fails its in-flight operations with "Topology is
  // closed" (found by the long fault run: 16 imports and 28 archive requests answered 500).
  if (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoNotConnectedError ||
    // A connection lost in the middle of an insertMany (reservations, data keys) comes back as a bulk
    // write error without write errors (found by the long fault run: 57 imports answered 500).
    (err instanceof MongoBulkWriteError && bulkWriteErrors(err).length === 0)
  ) {
    logger.warn(
      { requestId: (req as Request & { id?: string }).id, route: req.path, error: err.name },
      'database unavailable',
    );
    return {
      status: 503,
      code: ErrorCodes.ServiceUnavailable,
      message: 'The database is unavailable; nothing was accepted. Retry later.',
      headers: { 'retry-after': String(retryAfterSeconds) },
    };
  }
  if (err instanceof ApiError) {
    return {
      status: err.httpStatus,
      code: err.code,
      message: err.message,
      errors: err.fieldErrors,
      headers: err.headers,
    };
  }
  if (err instanceof AuthError) {
    return {
      status: err.httpStatus,
      code: err.code,
      message: err.message,
      headers: err.wwwAuthenticate ? { 'www-authenticate': err.wwwAuthenticate } : {},
    };
  }
  const e = err as { type?: string; status?: number; statusCode?: number };
  if (e?.type === 'entity.too.large') {
    return {
      status: 413,
      code: ErrorCodes.PayloadTooLarge,
      message: 'Request body is larger than the configured limit',
      headers: {},
    };
  }
  if (e?.type === 'entity.parse.failed') {
    return {
      status: 400,
      code: ErrorCodes.MalformedJson,
      message: 'Request body is not valid JSON',
      headers: {},
    };
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return {
      status: 415,
      code: ErrorCodes.UnsupportedMediaType,
      message: 'Unsupported content encoding or charset',
      headers: {},
    };
  }
  if (typeof (e?.status ?? e?.statusCode) === 'number' && (e.status ?? e.statusCode)! < 500) {
    return {
      status: (e.status ?? e.statusCode)!,
      code: ErrorCodes.ValidationFailed,
      message: 'Bad request',
      headers: {},
    };
  }
  logger.error({ err, requestId: (req as Request & { id?: string }).id, route: req.path }, 'unhandled error');
  return { status: 500, code: ErrorCodes.InternalError, message: 'Processing failed', headers: {} };
}

/**
 * The one place where coded errors become HTTP. Spec endpoints answer in the shapes of section 7;
 * every other endpoint answers { errorCode, errorDescription, errors? }.
 */
export function errorMiddleware(
  logger: Logger,
  clock: () => Date,
  retryAfterSeconds = 5,
): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const n = normalize(err, logger, req, retryAfterSeconds);
    for (const [k, v] of Object.entries(n.headers)) res.setHeader(k, v);
    const style = styleOf(req);
    res.status(n.status);
    if (n.status === 401 || n.status === 403 || n.status === 503 || n.status === 413 || n.status === 415) {
      // Same body on every endpoint, so clients can handle transport-level refusals in one place.
      res.json(errorBody(n.code, n.message, n.errors));
      return;
    }
    if (style === 'batch-validate' || style === 'batch-import') {
      if (n.status === 404)
        res.json(
          batchNotFoundBody(
            style === 'batch-validate' ? 'validate-batch-customers' : 'batch-customers',
            elapsed(req),
          ),
        );
      else if (n.status >= 500) res.json(batchProcessingFailedBody(elapsed(req)));
      else res.json({ ...batchBadRequestBody(clock(), req.path, `${n.code}: ${n.message}`) });
      return;
    }
    if (style === 'single' && n.status === 400) {
      // docs/api.md: every 400 of the single endpoint is a CustomerImportResponse (MALFORMED_JSON included).
      res.json({
        resultType: 'REQUEST_REJECTED',
        businessUnit: null,
        communicationNumber: null,
        customerExtId: null,
        errorCode: n.code,
        errorDescription: n.message,
        ...(n.errors && n.errors.length > 0 ? { errors: n.errors } : {}),
      });
      return;
    }
    if (style === 'simplified') {
      if (n.status === 404) res.json(simplifiedNotFoundBody(clock(), req.path));
      else if (n.status >= 500) res.json(simplifiedInternalErrorBody());
      else res.json(simplifiedRejectionBody(n.code, n.message));
      return;
    }
    res.json(errorBody(n.code, n.message, n.errors));
  };
}
