import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { MongoTopologyClosedError } from 'mongodb';
import { AuthMissingTokenError } from '@crs/auth';
import { createLogger } from '@crs/runtime';
import { RequestInvalidError, ResourceNotFoundError, fieldError } from './api-error';
import { errorMiddleware } from './error-middleware';

/** The express adapter in a real app: JSON parser, routes that fail, the adapter last. */
describe('errorMiddleware (express): every error as ErrorBody', () => {
  const logged: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use(express.json({ limit: '64b', type: 'application/json' }));
    app.post('/echo', (req, res) => {
      res.json(req.body);
    });
    app.get('/invalid', () => {
      throw new RequestInvalidError('V001', 'name is too long', [
        fieldError('name', 'TOO_LONG', 'name is too long'),
      ]);
    });
    app.get('/auth', () => {
      throw new AuthMissingTokenError();
    });
    app.get('/db', async () => {
      await Promise.reject(new MongoTopologyClosedError());
    });
    app.get('/boom', async () => {
      await Promise.reject(new Error('database driver exploded'));
    });
    app.use((_req, _res, next) => next(new ResourceNotFoundError()));
    app.use(errorMiddleware(createLogger('http-test', 'info', sink)));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const call = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${base}${path}`, init);
    return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
  };
  const post = (body: string, headers: Record<string, string> = {}) =>
    call('/echo', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('field errors: 400 { errorCode, errorDescription, errors }', async () => {
    expect(await call('/invalid')).toMatchObject({
      status: 400,
      body: {
        errorCode: 'V001',
        errorDescription: 'name is too long',
        errors: [{ path: 'name', code: 'V001.name.TOO_LONG', message: 'name is too long' }],
      },
    });
  });

  it('an unknown route: 404 NOT_FOUND', async () => {
    expect(await call('/nowhere')).toMatchObject({
      status: 404,
      body: { errorCode: 'NOT_FOUND', errorDescription: 'Not Found' },
    });
  });

  it('an auth error: its status, WWW-Authenticate and code', async () => {
    const res = await call('/auth');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    expect(res.body).toEqual({
      errorCode: 'AUTH_MISSING_TOKEN',
      errorDescription: 'A bearer access token is required',
    });
  });

  it('a database being reconnected: 503 with Retry-After (5 unless configured)', async () => {
    const res = await call('/db');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toMatchObject({ errorCode: 'SERVICE_UNAVAILABLE' });
  });

  it('body-parser errors: malformed JSON 400, too large 413, unsupported charset 415', async () => {
    expect(await post('{"a":')).toMatchObject({
      status: 400,
      body: { errorCode: 'MALFORMED_JSON', errorDescription: 'Request body is not valid JSON' },
    });
    expect(await post(JSON.stringify({ a: 'x'.repeat(100) }))).toMatchObject({
      status: 413,
      body: { errorCode: 'PAYLOAD_TOO_LARGE' },
    });
    expect(await post('{}', { 'content-type': 'application/json; charset=latin-9' })).toMatchObject({
      status: 415,
      body: { errorCode: 'UNSUPPORTED_MEDIA_TYPE' },
    });
  });

  it('anything else: 500 INTERNAL_ERROR, logged with the route, the message kept from the client', async () => {
    logged.length = 0;
    const res = await call('/boom');
    expect(res).toMatchObject({
      status: 500,
      body: { errorCode: 'INTERNAL_ERROR', errorDescription: 'Processing failed' },
    });
    expect(JSON.stringify(res.body)).not.toContain('exploded');
    expect(logged.join('')).toContain('unhandled error');
    expect(logged.join('')).toContain('"route":"/boom"');
  });
});
