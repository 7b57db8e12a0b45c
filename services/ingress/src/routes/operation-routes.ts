import { randomUUID } from 'node:crypto';
import { Router, type Request, type RequestHandler } from 'express';
import type { Filter } from 'mongodb';
import {
  ErrorCodes,
  FieldProblems,
  fieldCode,
  type ArchiveOperationCommand,
  type FieldError,
  type FieldProblem,
} from '@crs/contracts';
import { RequestInvalidError, ResourceNotFoundError, ServiceUnavailableError } from '@crs/http';
import { allowedBusinessUnits, requireScope, type Scope, type TokenVerifier } from '@crs/auth';
import { BrokerUnavailableError, streamKey, topicNames, type DurablePublisher } from '@crs/messaging';
import { operationFilter, type OperationDoc, type ProjectionCatalog } from '@crs/store';
import { assertBusinessUnit, principalOf, type AuthedRequest } from '../http/auth-middleware';
import { reconciliationRows } from './reconciliation-query';

/** The fields of the operations read model (owned by the archive service) that these routes read. */
type OperationRow = Pick<OperationDoc, '_id' | 'businessUnit' | 'extId' | 'archived' | 'registeredAt'>;

const MAX_PARAM = 255;
const MAX_RECONCILIATION_ROWS = 10000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Publishes archive commands to the operation decider. A sibling of CommandGateway rather than part of
 * it: an archive needs no communicationNumber reservation, and it goes to the operation commands topic.
 */
export class OperationArchiveRequests {
  constructor(
    private readonly publisher: () => DurablePublisher | undefined,
    private readonly commandsTopic: string,
    private readonly clock: () => Date,
  ) {}

  async archive(req: {
    businessUnit: string;
    extId: string;
    requestedBy: string;
    requestId: string;
  }): Promise<string> {
    const publisher = this.publisher();
    if (!publisher) throw new BrokerUnavailableError('publisher not started');
    const commandId = randomUUID();
    const streamId = streamKey(req.businessUnit, req.extId);
    const command: ArchiveOperationCommand = {
      commandId,
      type: 'ArchiveOperation',
      streamId,
      issuedAt: this.clock().toISOString(),
      correlationId: req.requestId,
      businessUnit: req.businessUnit,
      operationExtId: req.extId,
      issuedBy: req.requestedBy,
      data: { extId: req.extId, businessUnit: req.businessUnit, requestedBy: req.requestedBy },
    };
    await publisher.publish([
      { topic: this.commandsTopic, key: streamId, type: command.type, value: command },
    ]);
    return commandId;
  }
}

export interface OperationRouteDeps {
  verifier: TokenVerifier;
  catalog: ProjectionCatalog;
  publisher: () => DurablePublisher | undefined;
  topicPrefix: string;
  retryAfterSeconds: number;
  clock: () => Date;
}

function fieldError(name: string, problem: FieldProblem, message: string): FieldError {
  return { path: name, code: fieldCode(ErrorCodes.ValidationFailed, [name], problem), message };
}

/** A query parameter's problem, if any: required, a single string, at most 255 characters. */
function checkParam(value: unknown, name: string, required: boolean): FieldError | undefined {
  if (value === undefined || value === '') {
    return required ? fieldError(name, FieldProblems.Required, `${name} is required`) : undefined;
  }
  if (typeof value !== 'string')
    return fieldError(name, FieldProblems.InvalidType, `${name} must be given once, as a string`);
  // Characters (code points), as the JSON schemas count a body field's maxLength: "😀" is one, not two.
  if ([...value].length > MAX_PARAM)
    return fieldError(name, FieldProblems.TooLong, `${name} is longer than ${MAX_PARAM} characters`);
  if (value.includes('\u0000'))
    return fieldError(name, FieldProblems.ForbiddenCharacter, `${name} contains a forbidden character`);
  return undefined;
}

function rejectIfAny(errors: (FieldError | undefined)[]): void {
  const found = errors.filter((e): e is FieldError => e !== undefined);
  if (found.length > 0) {
    throw new RequestInvalidError(ErrorCodes.ValidationFailed, found.map((e) => e.message).join('; '), found);
  }
}

/** A window bound: a date (YYYY-MM-DD: the whole day counts) or an ISO date-time; UTC ISO string out. */
function windowBound(value: unknown, name: string, end: boolean): { error?: FieldError; iso?: string } {
  const problem = checkParam(value, name, true);
  if (problem) return { error: problem };
  const text = value as string;
  const ms = DATE.test(text)
    ? Date.parse(`${text}T00:00:00.000Z`) + (end ? 24 * 3600 * 1000 - 1 : 0)
    : Date.parse(text);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(text)) {
    return {
      error: fieldError(
        name,
        FieldProblems.InvalidDate,
        `${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time`,
      ),
    };
  }
  return { iso: new Date(ms).toISOString() };
}

/** Either scope opens the route (reconciliation serves archive clients and read-only clients alike). */
function authenticateAny(verifier: TokenVerifier, scopes: [Scope, ...Scope[]]): RequestHandler {
  return async (req, _res, next) => {
    const principal = await verifier.verify(req.headers.authorization);
    if (!scopes.some((s) => principal.scopes.has(s))) requireScope(principal, scopes[0]);
    (req as AuthedRequest).principal = principal;
    next();
  };
}

/** Archiving of operations and the operations reconciliation list (reference product). */
export function operationRoutes(deps: OperationRouteDeps): Router {
  const router = Router();
  const requests = new OperationArchiveRequests(
    deps.publisher,
    topicNames(deps.topicPrefix).operationCommands,
    deps.clock,
  );
  const operations = () => deps.catalog.collection<OperationRow>('operations');

  router.delete(
    '/api/integration-services/v1/discard-operations',
    authenticateAny(deps.verifier, ['operations:archive']),
    async (req: Request, res) => {
      rejectIfAny([
        checkParam(req.query.extId, 'extId', true),
        checkParam(req.query.businessUnit, 'businessUnit', true),
      ]);
      const extId = req.query.extId as string;
      const businessUnit = req.query.businessUnit as string;
      assertBusinessUnit(req, businessUnit);
      const doc = await (
        await operations()
      ).findOne(operationFilter(businessUnit, extId), { projection: { _id: 1, archived: 1 } });
      if (!doc) throw new ResourceNotFoundError('Operation not found');
      // Already archived: the archive is where the client wants it; nothing new to record.
      if (doc.archived !== true) {
        try {
          await requests.archive({
            businessUnit,
            extId,
            requestedBy: principalOf(req).subject,
            requestId: (req as Request & { id?: string }).id ?? randomUUID(),
          });
        } catch (err) {
          if (err instanceof BrokerUnavailableError)
            throw new ServiceUnavailableError(deps.retryAfterSeconds);
          throw err;
        }
      }
      res.status(200).json({});
    },
  );

  router.get(
    '/api/integration-services/v1/operations-reconciliation',
    authenticateAny(deps.verifier, ['operations:archive', 'customers:read']),
    async (req: Request, res) => {
      const from = windowBound(req.query.registeredFrom, 'registeredFrom', false);
      const till = windowBound(req.query.registeredTill, 'registeredTill', true);
      rejectIfAny([from.error, till.error, checkParam(req.query.businessUnit, 'businessUnit', false)]);
      if (from.iso! > till.iso!) {
        rejectIfAny([
          fieldError(
            'registeredTill',
            FieldProblems.OutOfRange,
            'registeredTill must not be before registeredFrom',
          ),
        ]);
      }
      const requested =
        typeof req.query.businessUnit === 'string' && req.query.businessUnit !== ''
          ? req.query.businessUnit
          : undefined;
      const scope: Filter<OperationRow> = {};
      if (requested) {
        assertBusinessUnit(req, requested);
        scope.businessUnit = requested;
      } else {
        const allowed = allowedBusinessUnits(principalOf(req));
        if (allowed !== '*') scope.businessUnit = { $in: [...allowed] };
      }
      const docs = await reconciliationRows(
        await operations(),
        scope,
        from.iso!,
        till.iso!,
        MAX_RECONCILIATION_ROWS,
      );
      res
        .status(200)
        .json({ operations: docs.map((d) => ({ extId: d.extId, businessUnit: d.businessUnit })) });
    },
  );

  return router;
}
