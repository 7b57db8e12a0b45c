import { Router, type RequestHandler, type Request } from 'express';
import {
  requireBusinessUnit,
  requireScope,
  allowedBusinessUnits,
  type Principal,
  type Scope,
  type TokenVerifier,
} from '@crs/auth';
import type { Hit } from '@crs/screening-core';
import {
  parseDecisionRequest,
  parseSearchQuery,
  searchBodyAsQuery,
  type DecisionRequest,
  type SearchQuery,
} from './search-query';

type AuthedRequest = Request & { principal?: Principal };

function authenticate(verifier: TokenVerifier, scope: Scope): RequestHandler {
  return async (req, _res, next) => {
    const principal = await verifier.verify(req.headers.authorization);
    requireScope(principal, scope);
    (req as AuthedRequest).principal = principal;
    next();
  };
}

export interface ScreeningRoutesDeps {
  verifier: TokenVerifier;
  /** Ranked hits of the serving index; `businessUnits` limits the customer-derived internal list. */
  search(query: SearchQuery, businessUnits: '*' | readonly string[]): Hit[];
  /** Records a decision; resolves with the decision event's id. */
  decide(request: DecisionRequest, decidedBy: string): Promise<string>;
}

/**
 * GET and POST /api/screening/search (screening:search) and POST /api/screening/decisions
 * (screening:decide). The POST form of the search takes the same parameters as a JSON body, so the
 * searched name and birth date stay out of URLs (and out of the access logs of proxies in front).
 */
export function screeningRoutes(deps: ScreeningRoutesDeps): Router {
  const router = Router();

  const search = (req: Request, params: Record<string, unknown>) => {
    const principal = (req as AuthedRequest).principal!;
    const query = parseSearchQuery(params);
    if (query.businessUnit) requireBusinessUnit(principal, query.businessUnit);
    const units = query.businessUnit ? [query.businessUnit] : allowedBusinessUnits(principal);
    const hits = deps.search(query, units);
    return {
      hits: hits.map((h) => ({
        list: h.list,
        source: h.source,
        entryId: h.entryId,
        entityType: h.entityType,
        name: h.names[0] ?? h.matchedName,
        names: h.names,
        matchedName: h.matchedName,
        score: h.score,
        explanation: h.explanation,
      })),
    };
  };
  const searcher = authenticate(deps.verifier, 'screening:search');
  router.get('/api/screening/search', searcher, (req, res) => {
    res.json(search(req, req.query as Record<string, unknown>));
  });
  router.post('/api/screening/search', searcher, (req, res) => {
    res.json(search(req, searchBodyAsQuery(req.body)));
  });

  router.post(
    '/api/screening/decisions',
    authenticate(deps.verifier, 'screening:decide'),
    async (req, res) => {
      const principal = (req as AuthedRequest).principal!;
      const request = parseDecisionRequest(req.body);
      requireBusinessUnit(principal, request.businessUnit);
      const id = await deps.decide(request, principal.subject);
      res.status(202).json({ resultType: 'REQUEST_ACCEPTED', commandId: id });
    },
  );

  return router;
}
