import { errorBody, type ErrorBody } from '@crs/contracts';
import { httpFailure, type HttpFailureOptions } from './http-failure';

/** An answer of a plain node:http API: status, JSON body and headers. */
export interface ApiAnswer<B = unknown> {
  status: number;
  body: B;
  headers?: Record<string, string>;
}

/**
 * The plain node:http adapter: the answer to any thrown error, with the documented
 * `{ errorCode, errorDescription, errors? }` (ErrorBody); the caller writes it.
 */
export function answerForError(err: unknown, options: HttpFailureOptions): ApiAnswer<ErrorBody> {
  const f = httpFailure(err, options);
  return { status: f.status, body: errorBody(f.code, f.message, f.errors), headers: { ...f.headers } };
}
