import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import {
  ErrorCodes,
  SchemaIds,
  summarizeErrors,
  type RiskLevel,
  type RiskOverrideRequest,
  type Validators,
} from '@crs/contracts';
import { ApiError, RequestInvalidError, ResourceNotFoundError, ServiceUnavailableError } from '@crs/http';
import type { TokenVerifier } from '@crs/auth';
import { BrokerUnavailableError } from '@crs/messaging';
import { customerFilter, type CustomerDoc, type ProjectionCatalog } from '@crs/store';
import { authenticate, assertBusinessUnit, principalOf } from '../http/auth-middleware';
import type { CommandGateway } from '../command-gateway';

export interface RiskRouteDeps {
  verifier: TokenVerifier;
  validators: Validators;
  catalog: ProjectionCatalog;
  gateway: CommandGateway;
  retryAfterSeconds: number;
  clock: () => Date;
}

/** The customer decider's code for the same rule (C006), answered here before anything is published. */
class CustomerNotScorableError extends ApiError {
  constructor() {
    super(
      ErrorCodes.CustomerNotScorable,
      409,
      'A simplified customer cannot be risk-scored; import the full customer first',
    );
  }
}

/**
 * POST /api/risk/overrides: a person sets a customer's risk level manually, with a reason and an
 * optional expiry. The override is a SetRiskOverride command for the customer decider, which records
 * it as an assessment (source OVERRIDE) and keeps applying it to later evaluations until it expires.
 * The correlation key is generated (`override-<uuid>`) and returned: the callbacks carry it as ce-source.
 */
export function riskRoutes(deps: RiskRouteDeps): Router {
  const router = Router();
  const override = authenticate(deps.verifier, 'risk:override');

  router.post('/api/risk/overrides', override, async (req, res) => {
    const result = deps.validators.validate<RiskOverrideRequest>(
      SchemaIds['http/risk-override-request.v1'],
      req.body,
    );
    if (!result.ok) {
      const s = summarizeErrors(result.errors);
      throw new RequestInvalidError(s.errorCode, s.errorDescription, result.errors);
    }
    const body = result.value;
    assertBusinessUnit(req, body.businessUnit);
    // A date-time is stored in UTC, so the decider and the expiry scan can compare ISO strings.
    const expiresAt =
      body.expiresAt === undefined || /^\d{4}-\d{2}-\d{2}$/.test(body.expiresAt)
        ? body.expiresAt
        : new Date(body.expiresAt).toISOString();
    if (expiresAt !== undefined && Date.parse(expiresAt) <= deps.clock().getTime()) {
      throw new RequestInvalidError(ErrorCodes.ValidationFailed, 'expiresAt must lie in the future', [
        {
          path: 'expiresAt',
          code: `${ErrorCodes.ValidationFailed}.expiresAt.INVALID_VALUE`,
          message: 'expiresAt must lie in the future',
        },
      ]);
    }
    const customers = await deps.catalog.collection<Pick<CustomerDoc, '_id' | 'simplified'>>('customers');
    const customer = await customers.findOne(customerFilter(body.businessUnit, body.customerExtId), {
      projection: { _id: 1, simplified: 1 },
    });
    if (!customer) throw new ResourceNotFoundError('Customer not found');
    if (customer.simplified === true) throw new CustomerNotScorableError();
    const communicationNumber = `override-${randomUUID()}`;
    let commandId: string;
    try {
      commandId = await deps.gateway.publishOnly({
        type: 'SetRiskOverride',
        businessUnit: body.businessUnit,
        customerExtId: body.customerExtId,
        communicationNumber,
        issuedBy: principalOf(req).subject,
        data: {
          level: body.level as RiskLevel,
          reason: body.reason,
          setBy: principalOf(req).subject,
          ...(expiresAt !== undefined ? { expiresAt } : {}),
        },
      });
    } catch (err) {
      if (err instanceof BrokerUnavailableError) throw new ServiceUnavailableError(deps.retryAfterSeconds);
      throw err;
    }
    res.status(202).json({ resultType: 'REQUEST_ACCEPTED', commandId, communicationNumber });
  });

  return router;
}
