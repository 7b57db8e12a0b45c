import { Router } from 'express';
import type { Db } from 'mongodb';
import { SchemaIds, summarizeErrors, type Validators } from '@crs/contracts';
import type { TokenVerifier } from '@crs/auth';
import { DeliveryStore } from '@crs/store';
import { authenticate, assertBusinessUnit } from '../http/auth-middleware';
import { RequestInvalidError } from '../http/api-error';

/**
 * The delivery log and redelivery. The callback service owns `callback_deliveries` and its queue
 * (`DeliveryStore`); the ingress reads the log and, for a redelivery, puts chosen deliveries back in the
 * queue through the same store code — the callback service picks them up on its next round.
 */
export function callbackRoutes(deps: {
  verifier: TokenVerifier;
  db: Db;
  validators: Validators;
  clock: () => Date;
}): Router {
  const router = Router();
  const store = new DeliveryStore(deps.db);
  const deliveries = store.collection;
  const redeliverScope = authenticate(deps.verifier, 'callbacks:redeliver');

  router.get('/api/callbacks/deliveries', redeliverScope, async (req, res) => {
    const { businessUnit, communicationNumber } = req.query;
    if (
      typeof businessUnit !== 'string' ||
      typeof communicationNumber !== 'string' ||
      !businessUnit ||
      !communicationNumber
    ) {
      throw new RequestInvalidError('V001', 'businessUnit and communicationNumber are required', [
        {
          path: 'businessUnit',
          code: 'V001.businessUnit.REQUIRED',
          message: 'businessUnit and communicationNumber are required',
        },
      ]);
    }
    assertBusinessUnit(req, businessUnit);
    const docs = await deliveries
      .find({ businessUnit, communicationNumber })
      .sort({ _id: 1 })
      .limit(1000)
      .toArray();
    res.json({
      deliveries: docs.map((d) => ({
        eventId: d.eventId,
        type: d.cloudEvent.type,
        endpointId: d.endpointId,
        customerExtId: d.customerExtId,
        status: d.status,
        attempts: d.attempts,
        nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null,
        deliveredAt: d.deliveredAt ?? null,
        log: d.log.map((a) => ({
          at: a.at,
          status: a.status,
          ms: a.ms,
          ...(a.error ? { error: a.error } : {}),
        })),
      })),
    });
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
    const { businessUnit, communicationNumber, eventIds } = v.value;
    assertBusinessUnit(req, businessUnit);
    // Without event ids: the dead-lettered deliveries of the communication; with ids: those, whatever their state.
    const requeued = await store.redeliver(
      { businessUnit, communicationNumber, ...(eventIds?.length ? { eventIds, deadOnly: false } : {}) },
      deps.clock(),
    );
    res.status(202).json({ requeued });
  });

  return router;
}
