import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { ErrorCodes, FieldProblems, streamKey } from '@crs/contracts';
import {
  ApiError,
  RequestInvalidError,
  ResourceNotFoundError,
  ServiceUnavailableError,
  fieldError,
} from '@crs/http';
import type { TokenVerifier } from '@crs/auth';
import { BrokerUnavailableError } from '@crs/messaging';
import {
  relationshipFactsOf,
  retentionHold,
  retentionYearsFor,
  type CustomerPrivacy,
  type RetentionPolicy,
} from '@crs/privacy';
import { customerFilter, type CustomerDoc, type ProjectionCatalog } from '@crs/store';
import { authenticate, assertBusinessUnit, principalOf } from '../http/auth-middleware';
import type { CommandGateway } from '../command-gateway';
import { param } from './read-routes';

export interface PrivacyRouteDeps {
  verifier: TokenVerifier;
  catalog: ProjectionCatalog;
  gateway: CommandGateway;
  privacy: CustomerPrivacy;
  retention: RetentionPolicy;
  retryAfterSeconds: number;
  clock: () => Date;
}

/** The scope of the erasure API, and the one that may erase while a retention hold applies. */
export const ERASE_SCOPE = 'customers:erase';
export const ERASE_OVERRIDE_SCOPE = 'customers:erase:override';

/** What the erasure API reads of a customer in the `customers` read model. */
type ErasureCustomer = Pick<
  CustomerDoc,
  | '_id'
  | 'status'
  | 'simplified'
  | 'closingDate'
  | 'statusChangedAt'
  | 'updatedAt'
  | 'personalDataErased'
  | 'erasure'
>;

/** docs/privacy.md: 409 while the relationship is open or its retention period runs. */
class RetentionHoldApiError extends ApiError {
  constructor(holdUntil: string | null, retentionYears: number) {
    super(
      ErrorCodes.RetentionHold,
      409,
      holdUntil
        ? `A retention hold applies until ${holdUntil} (${retentionYears} years after the relationship ended); erasing before then needs the ${ERASE_OVERRIDE_SCOPE} scope`
        : `A retention hold applies while the business relationship is open; erasing needs the ${ERASE_OVERRIDE_SCOPE} scope`,
      [
        {
          path: 'customerExtId',
          code: `${ErrorCodes.RetentionHold}.customerExtId.RETENTION_HOLD`,
          message: holdUntil ? `held until ${holdUntil}` : 'held while the relationship is open',
        },
      ],
    );
  }
}

/** Erasure needs encryption: without it the log holds plaintext that no key deletion can reach. */
class ErasureUnavailableError extends ApiError {
  constructor() {
    super(
      ErrorCodes.ServiceUnavailable,
      503,
      'Personal data erasure needs encryption (PRIVACY_KEK_FILE); this installation stores personal data in plain',
    );
  }
}

/**
 * DELETE /api/customers/{businessUnit}/{customerExtId}/personal-data (docs/privacy.md): erases a
 * customer's personal data by crypto-shredding. The hold is checked here against the read model with the
 * decider's own rule (retentionHold), so a caller gets 409 at once; the customer decider checks it again
 * against the log and records PersonalDataErased, and the projector then deletes the customer's data key.
 * Idempotent: a customer already erased answers 200 with the erasure it had.
 */
export function privacyRoutes(deps: PrivacyRouteDeps): Router {
  const router = Router();
  const erase = authenticate(deps.verifier, ERASE_SCOPE);

  router.delete('/api/customers/:businessUnit/:customerExtId/personal-data', erase, async (req, res) => {
    const businessUnit = param(req.params.businessUnit, 'businessUnit');
    const customerExtId = param(req.params.customerExtId, 'customerExtId');
    assertBusinessUnit(req, businessUnit);
    const body = (req.body ?? {}) as { reason?: unknown };
    const reason = typeof req.query.reason === 'string' ? req.query.reason : body.reason;
    if (typeof reason !== 'string' || reason.trim().length === 0 || reason.length > 2000) {
      throw new RequestInvalidError(ErrorCodes.ValidationFailed, 'reason is required (1..2000 characters)', [
        fieldError(
          'reason',
          reason === undefined ? FieldProblems.Required : FieldProblems.InvalidValue,
          'reason is required (1..2000 characters): why the personal data is erased',
        ),
      ]);
    }
    if (!deps.privacy.enabled) throw new ErasureUnavailableError();
    const customers = await deps.catalog.collection<ErasureCustomer>('customers');
    const doc = await customers.findOne(customerFilter(businessUnit, customerExtId));
    if (!doc) throw new ResourceNotFoundError('Customer not found');
    if (doc.personalDataErased === true) {
      res.status(200).json({
        resultType: 'ALREADY_ERASED',
        businessUnit,
        customerExtId,
        erasedAt: doc.erasure?.erasedAt ?? null,
      });
      return;
    }
    const principal = principalOf(req);
    const override = principal.scopes.has(ERASE_OVERRIDE_SCOPE);
    const retentionYears = retentionYearsFor(deps.retention, businessUnit);
    const hold = retentionHold(relationshipFactsOf(doc), retentionYears, deps.clock().toISOString());
    if (hold.held && !override) throw new RetentionHoldApiError(hold.holdUntil, retentionYears);
    const communicationNumber = `erasure-${randomUUID()}`;
    let commandId: string;
    try {
      commandId = await deps.gateway.publishOnly({
        type: 'ErasePersonalData',
        businessUnit,
        customerExtId,
        communicationNumber,
        issuedBy: principal.subject,
        data: {
          reason: reason.trim(),
          requestedBy: principal.subject,
          override,
          retentionYears,
          source: 'API',
        },
      });
    } catch (err) {
      if (err instanceof BrokerUnavailableError) throw new ServiceUnavailableError(deps.retryAfterSeconds);
      throw err;
    }
    // This process must not encrypt a new record of the customer with the key about to be deleted.
    deps.privacy.forget(streamKey(businessUnit, customerExtId));
    res.status(202).json({
      resultType: 'REQUEST_ACCEPTED',
      businessUnit,
      customerExtId,
      commandId,
      communicationNumber,
      override: hold.held,
      holdUntil: hold.holdUntil,
    });
  });

  return router;
}
