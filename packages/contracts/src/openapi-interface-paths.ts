import {
  businessUnitQuery,
  classifierPath,
  commonErrors,
  json,
  pathParam,
  query,
  readErrors,
  ref,
  secured,
  type Json,
} from './openapi-parts';

/** The paths of the reference product's interface: customer imports, classifiers and the integration services. */
export function interfacePaths(): Json {
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
        '400': json(ref('SimplifiedCustomerResponse'), 'REQUEST_REJECTED: V001, O001, K00n, MALFORMED_JSON.'),
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
    '/classifier/currency': classifierPath('currency', 'code (ISO 4217 alpha-3), description, businessUnit'),
    '/classifier/country': classifierPath('country', 'code (ISO 3166-1 alpha-2), description, businessUnit'),
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
        parameters: [query('extId', true, 'External identifier of the operation.'), businessUnitQuery(true)],
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
  };
}
