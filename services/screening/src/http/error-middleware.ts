import type { ErrorRequestHandler } from 'express';
import { AuthError } from '@crs/auth';
import { errorBody } from '@crs/contracts';
import type { Logger } from '@crs/runtime';
import { ScreeningApiError } from './api-error';

/** The one place where the screening API's coded errors become HTTP: `{ errorCode, errorDescription, errors? }`. */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof ScreeningApiError) {
      res.status(err.httpStatus).json(errorBody(err.code, err.message, err.fieldErrors));
      return;
    }
    if (err instanceof AuthError) {
      if (err.wwwAuthenticate) res.setHeader('www-authenticate', err.wwwAuthenticate);
      res.status(err.httpStatus).json(errorBody(err.code, err.message));
      return;
    }
    const e = err as { type?: string };
    if (e?.type === 'entity.parse.failed') {
      res.status(400).json(errorBody('MALFORMED_JSON', 'Request body is not valid JSON'));
      return;
    }
    if (e?.type === 'entity.too.large') {
      res
        .status(413)
        .json(errorBody('PAYLOAD_TOO_LARGE', 'Request body is larger than the configured limit'));
      return;
    }
    logger.error({ err, route: req.path }, 'unhandled error');
    res.status(500).json(errorBody('INTERNAL_ERROR', 'Processing failed'));
  };
}
