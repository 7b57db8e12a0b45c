import { Writable } from 'node:stream';
import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import {
  AuthForbiddenBusinessUnitError,
  AuthForbiddenScopeError,
  AuthInvalidTokenError,
  AuthKeysUnavailableError,
  AuthMissingTokenError,
} from '@crs/auth';
import { ErrorCodes } from '@crs/contracts';
import { createLogger } from '@crs/runtime';
import {
  ApiError,
  MalformedJsonError,
  PayloadTooLargeError,
  RequestInvalidError,
  ResourceNotFoundError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  fieldError,
} from './api-error';
import { httpFailure } from './http-failure';

describe('httpFailure: any thrown error to status, code, description, field errors and headers', () => {
  const logged: string[] = [];
  const logger = createLogger(
    'http-test',
    'info',
    new Writable({
      write(chunk: Buffer, _enc, done) {
        logged.push(chunk.toString());
        done();
      },
    }),
  );
  const map = (err: unknown) =>
    httpFailure(err, { logger, retryAfterSeconds: 7, context: { requestId: 'req-1', route: '/x' } });
  beforeEach(() => {
    logged.length = 0;
  });

  // What insertMany throws: a connection lost mid-command has no write errors, a duplicate key has one.
  const bulk = (writeErrors?: unknown[]) =>
    writeErrors
      ? new MongoBulkWriteError(
          { message: 'E11000 duplicate key', code: 11000, writeErrors } as never,
          {
            insertedCount: 0,
          } as never,
        )
      : new MongoBulkWriteError(new MongoNetworkError('connection closed'), {
          insertedCount: 0,
        } as never);

  it.each([
    ['server selection', new MongoServerSelectionError('no primary', {} as never)],
    ['network', new MongoNetworkError('connection reset')],
    ['topology closed (a client being reconnected)', new MongoTopologyClosedError()],
    ['not connected', new MongoNotConnectedError('Client must be connected before running operations')],
    ['bulk write without write errors (connection lost mid-insertMany)', bulk(undefined)],
    ['bulk write with an empty list of write errors', bulk([])],
  ])('a database that cannot be reached (%s): 503 SERVICE_UNAVAILABLE with Retry-After', (_what, err) => {
    expect(map(err)).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is unavailable; nothing was accepted. Retry later.',
      headers: { 'retry-after': '7' },
    });
    expect(logged.join('')).toContain('database unavailable');
    expect(logged.join('')).toContain('"requestId":"req-1"');
  });

  it('a bulk write with write errors (a duplicate key) is not transient: a logged 500', () => {
    const dup = new MongoServerError({ message: 'E11000 duplicate key', code: 11000 });
    expect(map(bulk([dup])).status).toBe(500);
    expect(map(new MongoServerError({ message: 'E11000', code: 11000 })).status).toBe(500);
  });

  it('an ApiError answers its status, code, message, field errors and headers', () => {
    const errors = [fieldError('businessUnit', 'REQUIRED', 'businessUnit is required')];
    expect(map(new RequestInvalidError('V001', 'businessUnit is required', errors))).toEqual({
      status: 400,
      code: 'V001',
      message: 'businessUnit is required',
      errors: [
        { path: 'businessUnit', code: 'V001.businessUnit.REQUIRED', message: 'businessUnit is required' },
      ],
      headers: {},
    });
    expect(map(new ApiError('C006', 409, 'not scorable'))).toMatchObject({ status: 409, code: 'C006' });
    expect(map(new ResourceNotFoundError())).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      message: 'Not Found',
    });
    expect(map(new ServiceUnavailableError(3))).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: 'The request could not be stored durably; nothing was accepted. Retry later.',
      errors: undefined,
      headers: { 'retry-after': '3' },
    });
    expect(map(new PayloadTooLargeError())).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(map(new MalformedJsonError())).toMatchObject({ status: 400, code: 'MALFORMED_JSON' });
    expect(map(new UnsupportedMediaTypeError('Content-Type must be application/json'))).toMatchObject({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
    expect(logged).toEqual([]);
  });

  it('an AuthError answers its status and code, with its challenge in WWW-Authenticate', () => {
    expect(map(new AuthMissingTokenError())).toEqual({
      status: 401,
      code: 'AUTH_MISSING_TOKEN',
      message: 'A bearer access token is required',
      headers: { 'www-authenticate': expect.stringMatching(/^Bearer realm=/) },
    });
    expect(map(new AuthForbiddenScopeError('customers:write'))).toMatchObject({
      status: 403,
      code: 'AUTH_FORBIDDEN_SCOPE',
      headers: { 'www-authenticate': expect.stringContaining('insufficient_scope') },
    });
  });

  // @crs/auth cannot import ErrorCodes (@crs/contracts depends on it): its literals are checked here.
  it.each([
    [new AuthMissingTokenError(), ErrorCodes.AuthMissingToken, 401],
    [new AuthInvalidTokenError('expired'), ErrorCodes.AuthInvalidToken, 401],
    [new AuthForbiddenScopeError('customers:write'), ErrorCodes.AuthForbiddenScope, 403],
    [new AuthForbiddenBusinessUnitError('DEMO'), ErrorCodes.AuthForbiddenBusinessUnit, 403],
    [new AuthKeysUnavailableError(), ErrorCodes.AuthKeysUnavailable, 503],
  ])('%s answers its ErrorCodes entry %s with %i', (err, code, status) => {
    expect(map(err)).toMatchObject({ status, code });
  });

  it.each([
    ['entity.too.large', 413, 413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than the configured limit'],
    ['entity.parse.failed', 400, 400, 'MALFORMED_JSON', 'Request body is not valid JSON'],
    ['encoding.unsupported', 415, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding or charset'],
    ['charset.unsupported', 415, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding or charset'],
    ['request.aborted', 400, 400, 'V001', 'Bad request'],
  ])('a body-parser error of type %s: %i', (type, given, status, code, message) => {
    const err = Object.assign(new Error('parser'), { type, status: given });
    expect(map(err)).toEqual({ status, code, message, headers: {} });
  });

  it('an error with a client status (statusCode too) is a 400-range V001 "Bad request"', () => {
    expect(map(Object.assign(new Error('x'), { statusCode: 405 }))).toMatchObject({
      status: 405,
      code: 'V001',
    });
  });

  it.each([
    ['a plain Error', new Error('database driver exploded')],
    ['an error with a server status', Object.assign(new Error('database driver exploded'), { status: 502 })],
    ['a thrown string', 'database driver exploded'],
    ['undefined', undefined],
  ])('%s: a logged 500 INTERNAL_ERROR that does not leak the message', (_what, err) => {
    const f = map(err);
    expect(f).toEqual({ status: 500, code: 'INTERNAL_ERROR', message: 'Processing failed', headers: {} });
    expect(logged.join('')).toContain('unhandled error');
    expect(logged.join('')).toContain('"route":"/x"');
  });
});
