import type { BadRequestError } from './generated/http/error-bad-request.v1';
import type { BatchNotFoundError } from './generated/http/error-not-found-batch.v1';
import type { BatchProcessingFailedError } from './generated/http/error-processing-failed-batch.v1';
import type { SimplifiedNotFoundError } from './generated/http/error-not-found-simplified.v1';
import type { SimplifiedInternalError } from './generated/http/error-internal-simplified.v1';
import type { SimplifiedCustomerResponse } from './generated/http/simplified-customer-response.v1';
import type { ErrorBody } from './generated/http/error-body.v1';
import type { FieldError } from './field-errors';

/** The two batch endpoints; their 404 bodies differ in spelling (interface 7, rule 3). */
export type BatchEndpoint = 'validate-batch-customers' | 'batch-customers';

/** Bad request on the batch endpoints: `{ timestamp, status: 400, error, path }`. */
export function batchBadRequestBody(now: Date, path: string, error = 'Bad Request'): BadRequestError {
  return { timestamp: now.toISOString(), status: 400, error, path };
}

/** Not found on the batch endpoints: NotFound on validate-batch-customers, Not Found on batch-customers. */
export function batchNotFoundBody(endpoint: BatchEndpoint, timeElapsedMs: number): BatchNotFoundError {
  return {
    errorCode: '404',
    errorDescription: endpoint === 'validate-batch-customers' ? 'NotFound' : 'Not Found',
    timeElapsedMs: Math.max(0, Math.round(timeElapsedMs)),
  };
}

/** Processing failure on the batch endpoints. */
export function batchProcessingFailedBody(timeElapsedMs: number): BatchProcessingFailedError {
  return {
    errorCode: '500',
    errorDescription: 'Processing failed',
    timeElapsedMs: Math.max(0, Math.round(timeElapsedMs)),
  };
}

/** Not found on simplifiedCustomer: `{ timestamp, status: 404, error, path }`. */
export function simplifiedNotFoundBody(
  now: Date,
  path: string,
  error = 'Not Found',
): SimplifiedNotFoundError {
  return { timestamp: now.toISOString(), status: 404, error, path };
}

/** Internal error on simplifiedCustomer. */
export function simplifiedInternalErrorBody(error = 'Internal Server Error'): SimplifiedInternalError {
  return { resultType: 'REQUEST_REJECTED', status: 500, error };
}

/** Rejected simplified customer (validation, O001, K00n, C005). */
export function simplifiedRejectionBody(
  errorCode: string,
  errorDescription: string,
): SimplifiedCustomerResponse {
  return { resultType: 'REQUEST_REJECTED', errorCode, errorDescription };
}

/** Accepted simplified customer. */
export function simplifiedAcceptedBody(): SimplifiedCustomerResponse {
  return { resultType: 'REQUEST_ACCEPTED', errorCode: null, errorDescription: null };
}

/** Error body of the endpoints interface.md does not define (auth, limits, non-spec endpoints). */
export function errorBody(errorCode: string, errorDescription: string, errors?: FieldError[]): ErrorBody {
  return errors === undefined || errors.length === 0
    ? { errorCode, errorDescription }
    : { errorCode, errorDescription, errors };
}
