import { requireBusinessUnit, requireScope, type Principal, type TokenVerifier } from '@crs/auth';
import { ErrorCodes, FieldProblems, SchemaIds, summarizeErrors, type Validators } from '@crs/contracts';
import { RequestInvalidError, fieldError, type ApiAnswer } from '@crs/http';
import type { DeliveryStore } from '../delivery-store';

export interface RedeliveryApiDeps {
  verifier: TokenVerifier;
  validators: Validators;
  store: DeliveryStore;
  clock: () => Date;
}

interface RedeliverRequest {
  businessUnit: string;
  communicationNumber: string;
  eventIds?: string[];
}

/**
 * The delivery log and redelivery of the callback service, which owns `callback_deliveries` and its
 * queue. The public routes are the ingress's (`/api/callbacks/*`): it checks the request and forwards
 * it here. This API verifies the token, the scope `callbacks:redeliver` and the business unit again on
 * its own, with the same keys, because its port is reachable without the ingress (scrapers, probes:
 * docs/decisions/0026). Answers in the same shapes as the ingress.
 */
export class RedeliveryApi {
  constructor(private readonly deps: RedeliveryApiDeps) {}

  private async principal(authorization: string | undefined): Promise<Principal> {
    const principal = await this.deps.verifier.verify(authorization);
    requireScope(principal, 'callbacks:redeliver');
    return principal;
  }

  /** GET /api/callbacks/deliveries?businessUnit=&communicationNumber= : at most 1,000 entries, oldest first. */
  async deliveries(authorization: string | undefined, query: URLSearchParams): Promise<ApiAnswer> {
    const principal = await this.principal(authorization);
    const businessUnit = query.get('businessUnit');
    const communicationNumber = query.get('communicationNumber');
    if (!businessUnit || !communicationNumber) {
      const message = 'businessUnit and communicationNumber are required';
      throw new RequestInvalidError(ErrorCodes.ValidationFailed, message, [
        fieldError('businessUnit', FieldProblems.Required, message),
      ]);
    }
    requireBusinessUnit(principal, businessUnit);
    const docs = await this.deps.store.ofCommunication(businessUnit, communicationNumber, 1000);
    return {
      status: 200,
      body: {
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
      },
    };
  }

  /** POST /api/callbacks/redeliver: puts the chosen deliveries back in the queue; 202 with how many. */
  async redeliver(authorization: string | undefined, body: unknown): Promise<ApiAnswer> {
    const principal = await this.principal(authorization);
    const v = this.deps.validators.validate<RedeliverRequest>(
      SchemaIds['http/callback-redeliver-request.v1'],
      body,
    );
    if (!v.ok) {
      const { errorCode, errorDescription } = summarizeErrors(v.errors);
      throw new RequestInvalidError(errorCode, errorDescription, v.errors);
    }
    const { businessUnit, communicationNumber, eventIds } = v.value;
    requireBusinessUnit(principal, businessUnit);
    // Without event ids: the dead-lettered deliveries of the communication; with ids: those, whatever their state.
    const requeued = await this.deps.store.redeliver(
      { businessUnit, communicationNumber, ...(eventIds?.length ? { eventIds, deadOnly: false } : {}) },
      this.deps.clock(),
    );
    return { status: 202, body: { requeued } };
  }
}
