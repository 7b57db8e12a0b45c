import { Router } from 'express';
import { ErrorCodes, FieldProblems, SchemaIds, summarizeErrors, type Validators } from '@crs/contracts';
import type { TokenVerifier } from '@crs/auth';
import { RequestInvalidError, fieldError } from '@crs/http';
import { authenticate, assertBusinessUnit } from '../http/auth-middleware';
import { callUpstream, relay, type Upstream } from '../http/upstream';

/**
 * The delivery log and redelivery. The callback service owns `callback_deliveries` and its queue and
 * answers both routes through its own HTTP API (`CALLBACK_API_URL`, its health port). The ingress checks
 * the token, the scope, the parameters and the business unit first, as for every other route, then
 * forwards the checked request with the client's token, which the callback service verifies again
 * (docs/decisions/0026); its answer goes back to the client unchanged.
 */
export function callbackRoutes(deps: {
  verifier: TokenVerifier;
  validators: Validators;
  callbackApi: Upstream;
}): Router {
  const router = Router();
  const redeliverScope = authenticate(deps.verifier, 'callbacks:redeliver');

  router.get('/api/callbacks/deliveries', redeliverScope, async (req, res) => {
    const { businessUnit, communicationNumber } = req.query;
    if (
      typeof businessUnit !== 'string' ||
      typeof communicationNumber !== 'string' ||
      !businessUnit ||
      !communicationNumber
    ) {
      const message = 'businessUnit and communicationNumber are required';
      throw new RequestInvalidError(ErrorCodes.ValidationFailed, message, [
        fieldError('businessUnit', FieldProblems.Required, message),
      ]);
    }
    assertBusinessUnit(req, businessUnit);
    const query = new URLSearchParams({ businessUnit, communicationNumber });
    const answer = await callUpstream(deps.callbackApi, req, `/api/callbacks/deliveries?${query}`);
    await relay(res, answer, deps.callbackApi.retryAfterSeconds);
  });

  router.post('/api/callbacks/redeliver', redeliverScope, async (req, res) => {
    const v = deps.validators.validate<{
      businessUnit: string;
      communicationNumber: string;
      eventIds?: string[];
    }>(SchemaIds['http/callback-redeliver-request.v1'], req.body);
    if (!v.ok)
      throw new RequestInvalidError(
        summarizeErrors(v.errors).errorCode,
        summarizeErrors(v.errors).errorDescription,
        v.errors,
      );
    assertBusinessUnit(req, v.value.businessUnit);
    const body = JSON.stringify(v.value);
    const answer = await callUpstream(deps.callbackApi, req, '/api/callbacks/redeliver', body);
    await relay(res, answer, deps.callbackApi.retryAfterSeconds);
  });

  return router;
}
