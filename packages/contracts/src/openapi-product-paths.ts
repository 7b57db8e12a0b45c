import {
  businessUnitQuery,
  commonErrors,
  json,
  pathParam,
  query,
  readErrors,
  ref,
  secured,
  type Json,
} from './openapi-parts';

/** The paths this product adds: the customer read and erasure API, screening, risk, callbacks, reconciliation and health. */
export function productPaths(): Json {
  return {
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
          query('reason', false, 'Why the data is erased (or `reason` in a JSON body); 1..2000 characters.', {
            type: 'string',
            minLength: 1,
            maxLength: 2000,
          }),
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
          '409': json(ref('ErrorBody'), 'A retention hold applies (RETENTION_HOLD, with the date it ends).'),
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
  };
}
