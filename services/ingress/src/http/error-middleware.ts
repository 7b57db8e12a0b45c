import type { ErrorRequestHandler, Request } from 'express';
import {
  batchBadRequestBody,
  batchNotFoundBody,
  batchProcessingFailedBody,
  errorBody,
  simplifiedInternalErrorBody,
  simplifiedNotFoundBody,
  simplifiedRejectionBody,
} from '@crs/contracts';
import { failureFor } from '@crs/http';
import type { Logger } from '@crs/runtime';

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

/**
 * The ingress's adapter of the shared mapping (@crs/http's failureFor): spec endpoints answer in the
 * shapes of section 7; every other endpoint answers { errorCode, errorDescription, errors? }.
 */
export function errorMiddleware(
  logger: Logger,
  clock: () => Date,
  retryAfterSeconds = 5,
): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const n = failureFor(err, req, logger, retryAfterSeconds);
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
