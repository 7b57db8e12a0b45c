import {
  batchBadRequestBody,
  batchNotFoundBody,
  batchProcessingFailedBody,
  errorBody,
  simplifiedAcceptedBody,
  simplifiedInternalErrorBody,
  simplifiedNotFoundBody,
  simplifiedRejectionBody,
} from './error-bodies';
import { createValidators } from './validators';
import { SchemaIds } from './generated/schemas.generated';

const validators = createValidators();
const now = new Date('2024-05-01T10:00:00.000Z');
const conforms = (module: keyof typeof SchemaIds, body: unknown) =>
  validators.validate(SchemaIds[module], body).ok;

describe('section 7 error bodies', () => {
  it('batch bad request', () => {
    const body = batchBadRequestBody(now, '/core-ws-rest/batch-customers');
    expect(body).toEqual({
      timestamp: '2024-05-01T10:00:00.000Z',
      status: 400,
      error: 'Bad Request',
      path: '/core-ws-rest/batch-customers',
    });
    expect(conforms('http/error-bad-request.v1', body)).toBe(true);
  });

  it('batch not found spells the description per endpoint', () => {
    expect(batchNotFoundBody('validate-batch-customers', 12.4)).toEqual({
      errorCode: '404',
      errorDescription: 'NotFound',
      timeElapsedMs: 12,
    });
    expect(batchNotFoundBody('batch-customers', 3)).toEqual({
      errorCode: '404',
      errorDescription: 'Not Found',
      timeElapsedMs: 3,
    });
    expect(conforms('http/error-not-found-batch.v1', batchNotFoundBody('batch-customers', 3))).toBe(true);
  });

  it('batch processing failure', () => {
    expect(batchProcessingFailedBody(7)).toEqual({
      errorCode: '500',
      errorDescription: 'Processing failed',
      timeElapsedMs: 7,
    });
    expect(conforms('http/error-processing-failed-batch.v1', batchProcessingFailedBody(7))).toBe(true);
  });

  it('simplified bodies', () => {
    expect(simplifiedNotFoundBody(now, '/core-ws-rest/simplifiedCustomer')).toEqual({
      timestamp: '2024-05-01T10:00:00.000Z',
      status: 404,
      error: 'Not Found',
      path: '/core-ws-rest/simplifiedCustomer',
    });
    expect(simplifiedInternalErrorBody()).toEqual({
      resultType: 'REQUEST_REJECTED',
      status: 500,
      error: 'Internal Server Error',
    });
    expect(simplifiedRejectionBody('O001', 'Communication number is already used')).toEqual({
      resultType: 'REQUEST_REJECTED',
      errorCode: 'O001',
      errorDescription: 'Communication number is already used',
    });
    expect(conforms('http/error-not-found-simplified.v1', simplifiedNotFoundBody(now, '/x'))).toBe(true);
    expect(conforms('http/error-internal-simplified.v1', simplifiedInternalErrorBody())).toBe(true);
    expect(conforms('http/simplified-customer-response.v1', simplifiedAcceptedBody())).toBe(true);
  });

  it('generic error body carries field errors only when there are some', () => {
    expect(errorBody('AUTH_MISSING_TOKEN', 'Missing bearer token')).toEqual({
      errorCode: 'AUTH_MISSING_TOKEN',
      errorDescription: 'Missing bearer token',
    });
    const errors = [{ path: 'a', code: 'V001.a.REQUIRED', message: 'a is required' }];
    expect(conforms('http/error-body.v1', errorBody('V001', 'Validation failed', errors))).toBe(true);
  });
});
