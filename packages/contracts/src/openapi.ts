import { ScopeDescriptions, type Scope } from '@crs/auth/scopes';
import { schemaDocuments } from './generated/schemas.generated';

type Json = Record<string, unknown>;

const HTTP_PREFIX = 'https://schemas.crs.local/http/';

/**
 * Components from the HTTP schemas: each document becomes a component named by its title and each
 * `$defs` entry a component of its own; `$ref`s are rewritten to point at components, `$id` and `$schema`
 * are dropped so that no reference resolves against another base.
 */
function componentsFromSchemas(): { schemas: Record<string, Json>; refByUrl: Map<string, string> } {
  const http = schemaDocuments.filter((document) => String(document.$id).startsWith(HTTP_PREFIX));
  const refByUrl = new Map<string, string>();
  const pending: Array<[string, Json, string]> = [];
  const claim = (name: string, url: string) => {
    if ([...refByUrl.values()].includes(`#/components/schemas/${name}`))
      throw new Error(`Component name ${name} is used twice`);
    refByUrl.set(url, `#/components/schemas/${name}`);
  };
  for (const document of http) {
    const id = String(document.$id);
    const { $id: _id, $schema: _schema, $defs, ...rest } = document as Json;
    for (const [name, def] of Object.entries(($defs as Record<string, Json> | undefined) ?? {})) {
      claim(name, `${id}#/$defs/${name}`);
      pending.push([name, def, id]);
    }
    // A document that only holds $defs has no shape of its own.
    if ('type' in rest || 'allOf' in rest || 'properties' in rest) {
      claim(String(document.title), id);
      pending.push([String(document.title), rest, id]);
    }
  }
  const rewrite = (node: unknown, base: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, base));
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const target = refByUrl.get(new URL(value, base).toString());
        if (target === undefined) throw new Error(`Unresolvable $ref ${value} in ${base}`);
        out[key] = target;
      } else out[key] = rewrite(value, base);
    }
    return out;
  };
  const schemas: Record<string, Json> = {};
  for (const [name, schema, base] of pending.sort(([a], [b]) => a.localeCompare(b)))
    schemas[name] = rewrite(schema, base) as Json;
  return { schemas, refByUrl };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const commonErrors = {
  '401': { $ref: '#/components/responses/Unauthorized' },
  '403': { $ref: '#/components/responses/Forbidden' },
  '413': { $ref: '#/components/responses/PayloadTooLarge' },
  '415': { $ref: '#/components/responses/UnsupportedMediaType' },
  '503': { $ref: '#/components/responses/ServiceUnavailable' },
};
const readErrors = {
  '401': commonErrors['401'],
  '403': commonErrors['403'],
  '503': commonErrors['503'],
};
const secured = (scope: Scope) => [{ bearerAuth: [scope] }];
const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });
const query = (name: string, required: boolean, description: string, schema: Json = text(255)) => ({
  name,
  in: 'query',
  required,
  description,
  schema,
});
const pathParam = (name: string, description: string, schema: Json = text(255)) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
const businessUnitQuery = (required: boolean) =>
  query(
    'businessUnit',
    required,
    required
      ? 'Business unit identifier.'
      : "Business unit identifier; defaults to the token's only business unit (400 when the token has several).",
  );

function classifierPath(name: string, entry: string) {
  return {
    get: {
      operationId: `getClassifier${name.charAt(0).toUpperCase()}${name.slice(1)}`,
      summary: `List the ${name} classifier of a business unit`,
      description: `Entries carry ${entry}.`,
      tags: ['classifiers'],
      security: secured('classifiers:read'),
      parameters: [businessUnitQuery(false)],
      responses: {
        '200': json({ type: 'array', items: ref('ClassifierEntry') }, 'The entries, ordered by code.'),
        '400': json(ref('ErrorBody'), 'businessUnit missing while the token has several, or invalid.'),
        ...readErrors,
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the service, with every body schema taken from schemas/http. Scopes are
 * listed per operation in the security requirement (OpenAPI 3.1 allows role names for any scheme).
 */
export function buildOpenApi(): Json {
  const { schemas } = componentsFromSchemas();
  const customerWrite = (
    operationId: string,
    summary: string,
    description: string,
    body: string,
    ok: Json,
    extra: Json,
  ) => ({
    post: {
      operationId,
      summary,
      description,
      tags: ['customers'],
      security: secured('customers:write'),
      requestBody: { required: true, content: { 'application/json': { schema: ref(body) } } },
      responses: { '200': ok, ...extra, ...commonErrors },
    },
  });
  const batchErrors = (notFound: string) => ({
    '400': json(
      ref('BadRequestError'),
      'Malformed JSON, not an object with an array customers, or more customers than allowed.',
    ),
    '404': json(ref('BatchNotFoundError'), `Unknown business unit (errorDescription ${notFound}).`),
    '500': json(ref('BatchProcessingFailedError'), 'Processing failed.'),
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Customer Risk Import Service',
      version: 'v0',
      description:
        'Customer import, risk evaluation and screening. Decisions on points interface.md leaves open: docs/api.md.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [
      { name: 'customers' },
      { name: 'classifiers' },
      { name: 'operations' },
      { name: 'screening' },
      { name: 'risk' },
      { name: 'callbacks' },
      { name: 'health' },
    ],
    security: [{ bearerAuth: [] }],
    paths: {
      '/core-ws-rest/customer': customerWrite(
        'importCustomer',
        'Import one customer; EVALUATE also starts a risk evaluation',
        'Answers once the command is durably accepted; results arrive by callback.',
        'CustomerRecord',
        json(ref('CustomerImportResponse'), 'REQUEST_ACCEPTED.'),
        {
          '400': json(
            ref('CustomerImportResponse'),
            'REQUEST_REJECTED: V001 (with errors), O001, K001..K006, MALFORMED_JSON.',
          ),
        },
      ),
      '/core-ws-rest/validate-batch-customers': customerWrite(
        'validateBatchCustomers',
        'Validate many customers without saving',
        'Each item is validated as in batch-customers; nothing is stored.',
        'CustomerBatchRequest',
        json(ref('BatchResponse'), 'One result per item, in request order.'),
        batchErrors('NotFound'),
      ),
      '/core-ws-rest/batch-customers': customerWrite(
        'importBatchCustomers',
        'Import many customers (sourceOfRiskLevel IMPORT, no screening)',
        'Valid items are accepted, invalid ones rejected individually.',
        'CustomerBatchRequest',
        json(ref('BatchResponse'), 'One result per item, in request order.'),
        batchErrors('Not Found'),
      ),
      '/core-ws-rest/simplifiedCustomer': customerWrite(
        'importSimplifiedCustomer',
        'Import a simplified customer (screening only)',
        'A simplified customer cannot downgrade a full customer (C005, reported by callback).',
        'SimplifiedCustomerRecord',
        json(ref('SimplifiedCustomerResponse'), 'REQUEST_ACCEPTED.'),
        {
          '400': json(
            ref('SimplifiedCustomerResponse'),
            'REQUEST_REJECTED: V001, O001, K00n, MALFORMED_JSON.',
          ),
          '404': json(ref('SimplifiedNotFoundError'), 'Unknown business unit.'),
          '500': json(ref('SimplifiedInternalError'), 'Internal error.'),
        },
      ),
      '/classifier/paymentPurposeType': classifierPath('paymentPurposeType', 'code, title, businessUnit'),
      '/classifier/accountType': classifierPath('accountType', 'code, description, businessUnit'),
      '/classifier/addressType': classifierPath('addressType', 'code, description, businessUnit'),
      '/classifier/sourceOfWealth': classifierPath(
        'sourceOfWealth',
        'code (numeric string), description, businessUnit',
      ),
      '/classifier/currency': classifierPath(
        'currency',
        'code (ISO 4217 alpha-3), description, businessUnit',
      ),
      '/classifier/country': classifierPath(
        'country',
        'code (ISO 3166-1 alpha-2), description, businessUnit',
      ),
      '/classifier/riskManagementCategory': classifierPath(
        'riskManagementCategory',
        'code, description, businessUnit',
      ),
      '/api/integration-services/v1/discard-operations': {
        delete: {
          operationId: 'discardOperation',
          summary: 'Move an operation to the archive',
          tags: ['operations'],
          security: secured('operations:archive'),
          parameters: [
            query('extId', true, 'External identifier of the operation.'),
            businessUnitQuery(true),
          ],
          responses: {
            '200': json({ type: 'object', maxProperties: 0 }, 'Archived (also when it already was).'),
            '400': json(ref('ErrorBody'), 'Missing or too long query parameter.'),
            '404': json(ref('ErrorBody'), 'No such operation in this business unit (NOT_FOUND).'),
            ...readErrors,
          },
        },
      },
      '/api/integration-services/v1/communications-events/{communicationNumber}': {
        get: {
          operationId: 'getCommunicationEvents',
          summary: 'Events produced for one communication (callbacks a client may have missed)',
          tags: ['callbacks'],
          security: secured('customers:read'),
          parameters: [
            pathParam('communicationNumber', 'The communicationNumber of the request.'),
            businessUnitQuery(false),
          ],
          responses: {
            '200': json(
              ref('CommunicationsEventsResponse'),
              'Events in order (CloudEvents); errors holds rejections of the communication.',
            ),
            '400': json(
              ref('ErrorBody'),
              'communicationNumber or businessUnit empty or over 255 characters (V001).',
            ),
            '404': json(
              ref('ErrorBody'),
              "No event (yet) for this communicationNumber in the token's business units (NOT_FOUND).",
            ),
            ...readErrors,
          },
        },
      },
      '/api/customers/{businessUnit}/{customerExtId}': {
        get: {
          operationId: 'getCustomer',
          summary: 'Current state of a customer and its latest assessment',
          tags: ['customers'],
          security: secured('customers:read'),
          parameters: [
            pathParam('businessUnit', 'Business unit identifier.'),
            pathParam('customerExtId', 'External customer identifier.'),
          ],
          responses: {
            '200': json(ref('CustomerView'), 'The customer.'),
            '400': json(ref('ErrorBody'), 'A path parameter over 255 characters (V001).'),
            '404': json(ref('ErrorBody'), 'Unknown customer (NOT_FOUND).'),
            ...readErrors,
          },
        },
      },
      '/api/customers/{businessUnit}/{customerExtId}/personal-data': {
        delete: {
          operationId: 'erasePersonalData',
          summary: "Erase a customer's personal data (crypto-shredding: docs/privacy.md)",
          description:
            "Deletes the customer's data key, so every encrypted personal value of it, in every copy of the event log, reads as erased (null) from then on. Refused with 409 RETENTION_HOLD while the relationship is open or ended less than the business unit's retention period ago (default 5 years), unless the token also has customers:erase:override. Recorded as a PersonalDataErased event (who, when, why). Idempotent: an erased customer answers 200 ALREADY_ERASED.",
          tags: ['customers'],
          security: secured('customers:erase'),
          parameters: [
            pathParam('businessUnit', 'Business unit identifier.'),
            pathParam('customerExtId', 'External customer identifier.'),
            query(
              'reason',
              false,
              'Why the data is erased (or `reason` in a JSON body); 1..2000 characters.',
              {
                type: 'string',
                minLength: 1,
                maxLength: 2000,
              },
            ),
          ],
          requestBody: {
            required: false,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { reason: { type: 'string', minLength: 1, maxLength: 2000 } },
                },
              },
            },
          },
          responses: {
            '202': json(
              {
                type: 'object',
                required: ['resultType', 'businessUnit', 'customerExtId', 'commandId', 'communicationNumber'],
                properties: {
                  resultType: { const: 'REQUEST_ACCEPTED' },
                  businessUnit: { type: 'string' },
                  customerExtId: { type: 'string' },
                  commandId: { type: 'string' },
                  communicationNumber: {
                    type: 'string',
                    description: 'erasure-<uuid>: the pull endpoint and callbacks carry it',
                  },
                  override: { type: 'boolean', description: 'a retention hold applied and was overridden' },
                  holdUntil: { type: ['string', 'null'] },
                },
              },
              'Accepted: the customer decider records PersonalDataErased and the key is deleted moments later.',
            ),
            '200': json(
              {
                type: 'object',
                required: ['resultType', 'businessUnit', 'customerExtId'],
                properties: {
                  resultType: { const: 'ALREADY_ERASED' },
                  businessUnit: { type: 'string' },
                  customerExtId: { type: 'string' },
                  erasedAt: { type: ['string', 'null'] },
                },
              },
              'The personal data was erased before: nothing more to do.',
            ),
            '400': json(ref('ErrorBody'), 'No reason, or a path parameter over 255 characters (V001).'),
            '404': json(ref('ErrorBody'), 'Unknown customer (NOT_FOUND).'),
            '409': json(
              ref('ErrorBody'),
              'A retention hold applies (RETENTION_HOLD, with the date it ends).',
            ),
            ...commonErrors,
          },
        },
      },
      '/api/screening/search': {
        get: {
          operationId: 'searchScreeningLists',
          summary: 'Search the screening lists by name',
          tags: ['screening'],
          security: secured('screening:search'),
          parameters: [
            query('name', true, 'Name to search for (at most 300 characters).', {
              type: 'string',
              minLength: 1,
              maxLength: 300,
            }),
            query('entityType', false, 'INDIVIDUAL, ORGANIZATION, VESSEL or AIRCRAFT.', {
              type: 'string',
              enum: ['INDIVIDUAL', 'ORGANIZATION', 'VESSEL', 'AIRCRAFT'],
            }),
            query('birthDate', false, 'YYYY, YYYY-MM or YYYY-MM-DD; raises or lowers scores of persons.', {
              type: 'string',
            }),
            query('country', false, 'ISO 3166 country code; raises or lowers scores.', {
              type: 'string',
              maxLength: 3,
            }),
            query(
              'lists',
              false,
              'Comma-separated lists (SANCTIONS, PEP, ADVERSE_MEDIA, INTERNAL_LIST); all when omitted.',
              {
                type: 'string',
              },
            ),
            query('threshold', false, 'Minimum score in 0..1 (default: the configured threshold).', {
              type: 'number',
              minimum: 0,
              maximum: 1,
            }),
            businessUnitQuery(false),
            query('limit', false, 'Maximum hits (default 20).', {
              type: 'integer',
              minimum: 1,
              maximum: 100,
              default: 20,
            }),
          ],
          responses: {
            '200': json(ref('ScreeningSearchResponse'), 'Hits, best first.'),
            '400': json(ref('ErrorBody'), 'Invalid query (V001 with errors).'),
            ...readErrors,
          },
        },
        post: {
          operationId: 'searchScreeningListsByBody',
          summary:
            'Search the screening lists by name, the parameters in a JSON body (the name stays out of URLs and proxy logs)',
          tags: ['screening'],
          security: secured('screening:search'),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['name'],
                  properties: {
                    name: { type: 'string', minLength: 1, maxLength: 300 },
                    entityType: {
                      type: 'string',
                      enum: ['INDIVIDUAL', 'ORGANIZATION', 'VESSEL', 'AIRCRAFT'],
                    },
                    birthDate: { type: 'string', description: 'YYYY, YYYY-MM or YYYY-MM-DD' },
                    country: { type: 'string', minLength: 1, maxLength: 100 },
                    lists: {
                      description:
                        'SANCTIONS, PEP, ADVERSE_MEDIA, INTERNAL_LIST: an array or comma-separated text',
                      oneOf: [
                        { type: 'string' },
                        {
                          type: 'array',
                          items: {
                            type: 'string',
                            enum: ['SANCTIONS', 'PEP', 'ADVERSE_MEDIA', 'INTERNAL_LIST'],
                          },
                          minItems: 1,
                        },
                      ],
                    },
                    threshold: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
                    businessUnit: { type: 'string', minLength: 1, maxLength: 255 },
                    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
                  },
                },
              },
            },
          },
          responses: {
            '200': json(ref('ScreeningSearchResponse'), 'Hits, best first.'),
            '400': json(ref('ErrorBody'), 'Invalid body (V001 with errors).'),
            ...commonErrors,
          },
        },
      },
      '/api/screening/decisions': {
        post: {
          operationId: 'decideScreeningMatch',
          summary:
            'Decide a screening hit: FALSE_POSITIVE (suppressed until the entry or the name changes) or CONFIRMED',
          tags: ['screening'],
          security: secured('screening:decide'),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('ScreeningDecisionRequest') } },
          },
          responses: {
            '202': json(ref('CommandAccepted'), 'Recorded as an event.'),
            '400': json(ref('ErrorBody'), 'Invalid body (V001 with errors).'),
            '404': json(
              ref('ErrorBody'),
              'The hit is not in the last screening of that customer and list (SCREENING_HIT_NOT_FOUND).',
            ),
            ...commonErrors,
          },
        },
      },
      '/api/risk/overrides': {
        post: {
          operationId: 'overrideRisk',
          summary: "Set a customer's risk level manually, with a reason and an optional expiry",
          tags: ['risk'],
          security: secured('risk:override'),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('RiskOverrideRequest') } },
          },
          responses: {
            '202': json(ref('CommandAccepted'), 'Accepted; the outcome arrives as an event.'),
            '400': json(ref('ErrorBody'), 'Invalid body (V001 with errors).'),
            '404': json(ref('ErrorBody'), 'No such customer in this business unit (NOT_FOUND).'),
            '409': json(ref('ErrorBody'), 'A simplified customer cannot be risk-scored (C006).'),
            ...commonErrors,
          },
        },
      },
      '/api/callbacks/deliveries': {
        get: {
          operationId: 'getCallbackDeliveries',
          summary: 'The delivery log of a communication: attempts, status codes, latency',
          tags: ['callbacks'],
          security: secured('callbacks:redeliver'),
          parameters: [
            businessUnitQuery(true),
            query('communicationNumber', true, 'The communicationNumber of the request.'),
          ],
          responses: {
            '200': json(
              {
                type: 'object',
                required: ['deliveries'],
                properties: { deliveries: { type: 'array', items: { type: 'object' } } },
              },
              'One entry per event and endpoint, with every attempt.',
            ),
            '400': json(ref('ErrorBody'), 'A parameter is missing (V001).'),
            ...readErrors,
          },
        },
      },
      '/api/integration-services/v1/operations-reconciliation': {
        get: {
          operationId: 'reconcileOperations',
          summary: 'Operations registered in a time window (reference product)',
          tags: ['operations'],
          security: secured('operations:archive'),
          parameters: [
            query('registeredFrom', true, 'ISO 8601 date-time or date (from its start), inclusive.'),
            query('registeredTill', true, 'ISO 8601 date-time or date (the whole day), inclusive.'),
            businessUnitQuery(false),
          ],
          responses: {
            '200': json(
              {
                type: 'object',
                required: ['operations'],
                properties: {
                  operations: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['extId', 'businessUnit'],
                      properties: { extId: { type: 'string' }, businessUnit: { type: 'string' } },
                    },
                  },
                },
              },
              'Operations of the allowed business units.',
            ),
            '400': json(ref('ErrorBody'), 'A parameter is missing or not a date-time (V001).'),
            ...readErrors,
          },
        },
      },
      '/api/callbacks/redeliver': {
        post: {
          operationId: 'redeliverCallbacks',
          summary: 'Resend the callbacks of a communication',
          tags: ['callbacks'],
          security: secured('callbacks:redeliver'),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('CallbackRedeliverRequest') } },
          },
          responses: {
            '202': json(
              {
                type: 'object',
                required: ['requeued'],
                properties: { requeued: { type: 'integer', minimum: 0 } },
              },
              'The chosen deliveries (dead-lettered ones when no eventIds are given) are queued again.',
            ),
            '400': json(ref('ErrorBody'), 'Invalid body (V001 with errors).'),
            ...commonErrors,
          },
        },
      },
      '/health/live': {
        get: {
          operationId: 'getLiveness',
          summary: 'Liveness probe (no token: probes cannot carry one)',
          tags: ['health'],
          security: [],
          responses: { '200': json(ref('HealthResponse'), 'The process is alive.') },
        },
      },
      '/health/ready': {
        get: {
          operationId: 'getReadiness',
          summary: 'Readiness probe (no token)',
          tags: ['health'],
          security: [],
          responses: {
            '200': json(ref('HealthResponse'), 'Ready to serve.'),
            '503': json(ref('HealthResponse'), 'A dependency is unavailable.'),
          },
        },
      },
    },
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `Verified JWT bound to business units. Scopes: ${Object.entries(ScopeDescriptions)
            .map(([scope, meaning]) => `${scope} (${meaning})`)
            .join('; ')}`,
        },
      },
      responses: {
        Unauthorized: json(ref('ErrorBody'), 'AUTH_MISSING_TOKEN or AUTH_INVALID_TOKEN.'),
        Forbidden: json(ref('ErrorBody'), 'AUTH_FORBIDDEN_SCOPE or AUTH_FORBIDDEN_BUSINESS_UNIT.'),
        PayloadTooLarge: json(
          ref('ErrorBody'),
          'PAYLOAD_TOO_LARGE: body over the configured size (more customers than the batch limit is a 400).',
        ),
        UnsupportedMediaType: json(
          ref('ErrorBody'),
          'UNSUPPORTED_MEDIA_TYPE: the body must be application/json.',
        ),
        ServiceUnavailable: json(
          ref('ErrorBody'),
          'SERVICE_UNAVAILABLE: Kafka or the store is unreachable; retry later.',
        ),
      },
    },
  };
}
