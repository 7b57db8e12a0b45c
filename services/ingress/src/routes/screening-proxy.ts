import { Router } from 'express';
import { callUpstream, relay } from '../http/upstream';

const FORWARDED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

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
  const upstream = {
    url: deps.screeningApiUrl,
    timeoutMs: deps.timeoutMs,
    retryAfterSeconds: deps.retryAfterSeconds,
  };
  router.all(/^\/api\/screening\//, async (req, res, next) => {
    // fetch refuses TRACE/CONNECT (and the screening API has no such routes): a 404 like any unknown route, not a 503.
    if (!FORWARDED_METHODS.has(req.method)) {
      next();
      return;
    }
    const answer = await callUpstream(
      upstream,
      req,
      req.originalUrl,
      req.method === 'GET' || req.method === 'HEAD' ? undefined : JSON.stringify(req.body ?? {}),
    );
    await relay(res, answer);
  });
  return router;
}
