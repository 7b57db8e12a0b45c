import type { RequestHandler, Request } from 'express';
import { requireBusinessUnit, requireScope, type Principal, type Scope, type TokenVerifier } from '@crs/auth';

export type AuthedRequest = Request & { principal?: Principal };

/** Verifies the Bearer token and the endpoint's scope; business units are checked where they are known. */
export function authenticate(verifier: TokenVerifier, scope: Scope): RequestHandler {
  return async (req, _res, next) => {
    const principal = await verifier.verify(req.headers.authorization);
    requireScope(principal, scope);
    (req as AuthedRequest).principal = principal;
    next();
  };
}

export function principalOf(req: Request): Principal {
  const p = (req as AuthedRequest).principal;
  if (!p) throw new Error('route is missing the authenticate middleware');
  return p;
}

export function assertBusinessUnit(req: Request, businessUnit: string): void {
  requireBusinessUnit(principalOf(req), businessUnit);
}
