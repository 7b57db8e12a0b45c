export {
  ApiError,
  MalformedJsonError,
  PayloadTooLargeError,
  RequestInvalidError,
  ResourceNotFoundError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  fieldError,
} from './api-error';
export {
  httpFailure,
  isDatabaseUnavailable,
  type HttpFailure,
  type HttpFailureOptions,
} from './http-failure';
export { errorMiddleware, failureFor, requestContext } from './error-middleware';
export { answerForError, type ApiAnswer } from './answer-for-error';
export { answerClientError, clientErrorAnswer } from './client-errors';
