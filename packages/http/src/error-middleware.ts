import type { ErrorRequestHandler, Request } from 'express';
import { errorBody } from '@crs/contracts';
import type { Logger } from '@crs/runtime';
import { httpFailure, type HttpFailure } from './http-failure';

/** What the express adapters log with a failure: the request id (when set) and the route, never the body. */
export function requestContext(req: Request): Record<string, unknown> {
  return { requestId: (req as Request & { id?: string }).id, route: req.path };
}

/** The failure of an error thrown while an express app answered `req` (for adapters with their own body shapes). */
export function failureFor(
  err: unknown,
  req: Request,
  logger: Logger,
  retryAfterSeconds: number,
): HttpFailure {
  return httpFailure(err, { logger, retryAfterSeconds, context: requestContext(req) });
}

/**
 * The express adapter: the last middleware of an API, answering every error with its status, headers and
 * the documented `{ errorCode, errorDescription, errors? }` (ErrorBody).
 */
export function errorMiddleware(logger: Logger, retryAfterSeconds = 5): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const f = failureFor(err, req, logger, retryAfterSeconds);
    for (const [k, v] of Object.entries(f.headers)) res.setHeader(k, v);
    res.status(f.status).json(errorBody(f.code, f.message, f.errors));
  };
}
