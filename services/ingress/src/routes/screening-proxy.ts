import { Router, type Request } from 'express';
import { ServiceUnavailableError } from '../http/api-error';

const FORWARDED_REQUEST_HEADERS = ['authorization', 'content-type', 'x-request-id', 'accept'];
const FORWARDED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'www-authenticate', 'retry-after'];

/**
 * /api/screening/* is answered by the screening service, which holds the list index; the ingress is
 * the one entry point integrators use and forwards these requests unchanged (the token is verified
 * by the screening service itself, with the same keys and rules).
 */
export function screeningProxy(deps: {
  screeningApiUrl: string;
  timeoutMs: number;
  retryAfterSeconds: number;
}): Router {
  const router = Router();
  const forward = async (req: Request, body?: string) => {
    const headers: Record<string, string> = {};
    for (const h of FORWARDED_REQUEST_HEADERS) {
      const v = req.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }
    try {
      return await fetch(`${deps.screeningApiUrl}${req.originalUrl}`, {
        method: req.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(deps.timeoutMs),
        redirect: 'manual',
      });
    } catch {
      throw new ServiceUnavailableError(deps.retryAfterSeconds);
    }
  };
  router.all(/^\/api\/screening\//, async (req, res, next) => {
    // fetch refuses TRACE/CONNECT (and the screening API has no such routes): a 404 like any unknown route, not a 503.
    if (!FORWARDED_METHODS.has(req.method)) {
      next();
      return;
    }
    const upstream = await forward(
      req,
      req.method === 'GET' || req.method === 'HEAD' ? undefined : JSON.stringify(req.body ?? {}),
    );
    for (const h of FORWARDED_RESPONSE_HEADERS) {
      const v = upstream.headers.get(h);
      if (v) res.setHeader(h, v);
    }
    res.status(upstream.status).send(Buffer.from(await upstream.arrayBuffer()));
  });
  return router;
}
