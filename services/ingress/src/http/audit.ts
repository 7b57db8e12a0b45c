import type { Request, RequestHandler, Response } from 'express';
import { allowedBusinessUnits, type Principal, type TokenVerifier } from '@crs/auth';
import { streamKey } from '@crs/messaging';
import type { Logger } from '@crs/runtime';
import type { AuthedRequest } from './auth-middleware';

export type AuditAction =
  | 'customer.import'
  | 'customer.import-simplified'
  | 'customer.batch-import'
  | 'customer.batch-validate'
  | 'customer.read'
  | 'customer.pull'
  | 'customer.risk-override'
  | 'customer.screening-decision'
  | 'customer.personal-data-erase'
  | 'customer.callback-deliveries'
  | 'customer.callback-redeliver';

export type AuditOutcome = 'ALLOWED' | 'DENIED' | 'REJECTED' | 'FAILED';

/** Where the pseudonymous ids of the customer a request is about are found; nothing else is read. */
type IdSource = 'params' | 'query' | 'body' | 'batch';

interface AuditedRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** The express pattern, logged as `route`. */
  route: string;
  action: AuditAction;
  ids: IdSource[];
}

/**
 * Every ingress route that reads or changes customer data (docs/privacy.md, "Audit events"). Not here,
 * on purpose: health, metrics, docs, classifiers (reference data of a business unit), operations
 * (archiving by operation id), screening search (no customer in the request; its query holds a name).
 */
export const AUDITED_ROUTES: readonly AuditedRoute[] = [
  { method: 'POST', route: '/core-ws-rest/customer', action: 'customer.import', ids: ['body'] },
  {
    method: 'POST',
    route: '/core-ws-rest/simplifiedCustomer',
    action: 'customer.import-simplified',
    ids: ['body'],
  },
  { method: 'POST', route: '/core-ws-rest/batch-customers', action: 'customer.batch-import', ids: ['batch'] },
  {
    method: 'POST',
    route: '/core-ws-rest/validate-batch-customers',
    action: 'customer.batch-validate',
    ids: ['batch'],
  },
  {
    method: 'GET',
    route: '/api/customers/:businessUnit/:customerExtId',
    action: 'customer.read',
    ids: ['params'],
  },
  {
    method: 'DELETE',
    route: '/api/customers/:businessUnit/:customerExtId/personal-data',
    action: 'customer.personal-data-erase',
    ids: ['params'],
  },
  {
    method: 'GET',
    route: '/api/integration-services/v1/communications-events/:communicationNumber',
    action: 'customer.pull',
    ids: ['params', 'query'],
  },
  { method: 'POST', route: '/api/risk/overrides', action: 'customer.risk-override', ids: ['body'] },
  // Forwarded to the screening service, which verifies the token: the subject is found by verifying it again.
  { method: 'POST', route: '/api/screening/decisions', action: 'customer.screening-decision', ids: ['body'] },
  {
    method: 'GET',
    route: '/api/callbacks/deliveries',
    action: 'customer.callback-deliveries',
    ids: ['query'],
  },
  { method: 'POST', route: '/api/callbacks/redeliver', action: 'customer.callback-redeliver', ids: ['body'] },
];

/** Ids of a batch named in its audit event: a bounded line (log shippers split lines at 16 KiB). */
export const MAX_BATCH_STREAM_IDS = 100;
const MAX_BATCH_STREAM_ID_CHARS = 8000;
const MAX_BATCH_BUSINESS_UNITS = 20;
/** The contracts allow 255 characters; a rejected request may carry anything, so the log is bounded. */
const MAX_ID_LENGTH = 255;

export function auditOutcome(status: number): AuditOutcome {
  if (status === 401 || status === 403) return 'DENIED';
  if (status >= 500) return 'FAILED';
  if (status >= 400) return 'REJECTED';
  return 'ALLOWED';
}

interface CompiledRoute extends AuditedRoute {
  pattern: RegExp;
}

// Like express's matching: case-insensitive, an optional trailing slash, a parameter is one path segment.
const compiled: readonly CompiledRoute[] = AUDITED_ROUTES.map((r) => ({
  ...r,
  pattern: new RegExp(`^${r.route.replace(/[.]/g, '\\.').replace(/:(\w+)/g, '(?<$1>[^/]+)')}/?$`, 'i'),
}));

function match(
  method: string,
  path: string,
): { route: CompiledRoute; params: Record<string, string> } | null {
  // Express answers HEAD with the GET route.
  const m = method === 'HEAD' ? 'GET' : method;
  for (const route of compiled) {
    if (route.method !== m) continue;
    const found = route.pattern.exec(path);
    if (found) return { route, params: { ...found.groups } };
  }
  return null;
}

function id(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  return value.length > MAX_ID_LENGTH ? `${value.slice(0, MAX_ID_LENGTH)}…` : value;
}

function decoded(value: string | undefined): string | null {
  if (value === undefined) return null;
  try {
    return id(decodeURIComponent(value));
  } catch {
    return id(value);
  }
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The pseudonymous ids only; every other field of the body (names, dates, addresses, reasons) is never read. */
function resourceOf(route: CompiledRoute, params: Record<string, string>, req: Request) {
  const resource: Record<string, unknown> = {
    businessUnit: null,
    customerExtId: null,
    communicationNumber: null,
  };
  const take = (source: Record<string, unknown>, decode: boolean) => {
    for (const key of ['businessUnit', 'customerExtId', 'communicationNumber']) {
      const v = decode ? decoded(source[key] as string | undefined) : id(source[key]);
      if (v !== null && resource[key] === null) resource[key] = v;
    }
  };
  for (const source of route.ids) {
    if (source === 'params') take(params, true);
    else if (source === 'query') take(record(req.query), false);
    else if (source === 'body') take(record(req.body), false);
    else Object.assign(resource, batchOf(req.body));
  }
  return resource;
}

/**
 * A batch names its size, its business units and the first customers' stream ids
 * (`<businessUnit>:<customerExtId>`); `streamIdsOmitted` counts the customers left out.
 */
function batchOf(body: unknown) {
  const items = record(body).customers;
  if (!Array.isArray(items))
    return { customers: null, businessUnits: [], streamIds: [], streamIdsOmitted: 0 };
  const units = new Set<string>();
  const streamIds: string[] = [];
  let chars = 0;
  for (const item of items) {
    const bu = id(record(item).businessUnit);
    const ext = id(record(item).customerExtId);
    if (bu !== null) units.add(bu);
    if (bu === null || ext === null) continue;
    const streamId = streamKey(bu, ext);
    if (streamIds.length >= MAX_BATCH_STREAM_IDS || chars + streamId.length > MAX_BATCH_STREAM_ID_CHARS)
      continue;
    streamIds.push(streamId);
    chars += streamId.length;
  }
  const businessUnits = [...units].sort();
  return {
    businessUnit: businessUnits.length === 1 ? businessUnits[0] : null,
    customers: items.length,
    businessUnits: businessUnits.slice(0, MAX_BATCH_BUSINESS_UNITS),
    streamIds,
    streamIdsOmitted: items.length - streamIds.length,
  };
}

export interface AuditLogDeps {
  logger: Logger;
  /**
   * Verifies the token again where no route attached a principal: requests forwarded to the screening
   * service, and tokens refused for a missing scope (authenticate checks the scope before it attaches).
   */
  verifier?: TokenVerifier;
}

/**
 * One structured audit event per request that reads or changes customer data, written when the
 * answer is sent (the principal is attached by the route's authenticate, after this middleware ran).
 * Its own logger level (info), so LOG_LEVEL does not silence audit; AUDIT_LOG=false does not mount it.
 */
export function auditLog(deps: AuditLogDeps): RequestHandler {
  const audit = deps.logger.child({ log: 'audit' }, { level: 'info' });

  const principalFor = async (req: Request, res: Response): Promise<Principal | undefined> => {
    const attached = (req as AuthedRequest).principal;
    if (attached) return attached;
    const header = req.headers.authorization;
    // A 401 means the token did not verify: verifying it again would only repeat the work.
    if (!deps.verifier || !header || res.statusCode === 401) return undefined;
    return deps.verifier.verify(header).catch(() => undefined);
  };

  return (req, res, next) => {
    const found = match(req.method, req.path);
    if (!found) {
      next();
      return;
    }
    let written = false;
    const write = async (aborted: boolean) => {
      if (written) return;
      written = true;
      const principal = await principalFor(req, res);
      const status = aborted && !res.headersSent ? null : res.statusCode;
      audit.info(
        {
          audit: {
            action: found.route.action,
            // A client that went away got no answer; the customer's events say whether the change happened.
            outcome: status === null ? 'FAILED' : auditOutcome(status),
            status,
            ...(aborted ? { aborted: true } : {}),
            subject: principal?.subject ?? null,
            tokenId: principal?.tokenId ?? null,
            tokenBusinessUnits: principal ? allowedBusinessUnits(principal) : null,
            ...resourceOf(found.route, found.params, req),
            requestId: (req as Request & { id?: string }).id ?? null,
            method: req.method,
            route: found.route.route,
          },
        },
        'audit',
      );
    };
    const emit = (aborted: boolean) => {
      write(aborted).catch((err: unknown) => deps.logger.error({ err }, 'audit event not written'));
    };
    res.once('finish', () => emit(false));
    res.once('close', () => {
      if (!res.writableFinished) emit(true);
    });
    next();
  };
}
