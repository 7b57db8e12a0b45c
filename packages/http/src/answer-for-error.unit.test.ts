import { Writable } from 'node:stream';
import { MongoNotConnectedError } from 'mongodb';
import { AuthForbiddenScopeError } from '@crs/auth';
import { createLogger } from '@crs/runtime';
import { RequestInvalidError, ServiceUnavailableError, fieldError } from './api-error';
import { answerForError } from './answer-for-error';

describe('answerForError (plain node:http): the answer to any thrown error', () => {
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
  const answer = (err: unknown) =>
    answerForError(err, { logger, retryAfterSeconds: 5, context: { route: '/api/callbacks/x' } });

  it('an ApiError: its status, ErrorBody with field errors, its headers', () => {
    const errors = [fieldError('businessUnit', 'REQUIRED', 'businessUnit is required')];
    expect(answer(new RequestInvalidError('V001', 'businessUnit is required', errors))).toEqual({
      status: 400,
      body: { errorCode: 'V001', errorDescription: 'businessUnit is required', errors },
      headers: {},
    });
    expect(answer(new ServiceUnavailableError(5, 'Starting. Retry later.'))).toEqual({
      status: 503,
      body: { errorCode: 'SERVICE_UNAVAILABLE', errorDescription: 'Starting. Retry later.' },
      headers: { 'retry-after': '5' },
    });
  });

  it('an AuthError: its status and WWW-Authenticate', () => {
    expect(answer(new AuthForbiddenScopeError('callbacks:read'))).toMatchObject({
      status: 403,
      body: { errorCode: 'AUTH_FORBIDDEN_SCOPE' },
      headers: { 'www-authenticate': expect.stringContaining('insufficient_scope') },
    });
  });

  it('a database that cannot be reached: 503 with Retry-After', () => {
    expect(answer(new MongoNotConnectedError('not connected'))).toEqual({
      status: 503,
      body: {
        errorCode: 'SERVICE_UNAVAILABLE',
        errorDescription: 'The database is unavailable; nothing was accepted. Retry later.',
      },
      headers: { 'retry-after': '5' },
    });
  });

  it('anything else: a logged 500', () => {
    logged.length = 0;
    expect(answer(new Error('exploded'))).toEqual({
      status: 500,
      body: { errorCode: 'INTERNAL_ERROR', errorDescription: 'Processing failed' },
      headers: {},
    });
    expect(logged.join('')).toContain('unhandled error');
  });
});
