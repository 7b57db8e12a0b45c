import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { createLogger } from '@crs/runtime';
import { errorMiddleware } from './error-middleware';
import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoTopologyClosedError,
} from 'mongodb';
import { ResourceNotFoundError } from './api-error';

/**
 * The processing-failure bodies of interface section 7 (and docs/api.md for the single endpoint), from a
 * real express app wired like the ingress (JSON parser, routes, the ingress's error middleware last) whose
 * handlers fail with a plain Error, thrown synchronously or as a rejected promise.
 */
describe('error middleware: 500 bodies', () => {
  const logged: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  const NOW = new Date('2026-03-01T12:00:00.000Z');
  let server: Server;
  let base: string;
  let failAsync = false;

  beforeAll(async () => {
    const app = express();
    app.use((req, _res, next) => {
      Object.assign(req, { id: 'req-1', startedAt: process.hrtime.bigint() });
      next();
    });
    app.use(express.json());
    const fail = async () => {
      if (failAsync) await Promise.reject(new Error('database driver exploded'));
      throw new Error('database driver exploded');
    };
    for (const path of [
      '/core-ws-rest/customer',
      '/core-ws-rest/validate-batch-customers',
      '/core-ws-rest/batch-customers',
      '/core-ws-rest/simplifiedCustomer',
      '/api/risk/overrides',
    ]) {
      app.post(path, async () => {
        await fail();
      });
    }
    // What the driver throws to operations in flight while the MongoDB watchdog reconnects the client.
    app.post('/db/topology-closed', async () => {
      await Promise.reject(new MongoTopologyClosedError());
    });
    app.post('/db/not-connected', async () => {
      await Promise.reject(new MongoNotConnectedError('Client must be connected before running operations'));
    });
    // What insertMany throws when the connection is lost mid-command: a bulk error without write errors.
    app.post('/db/bulk-connection-lost', async () => {
      await Promise.reject(
        new MongoBulkWriteError(new MongoNetworkError('connection closed'), { insertedCount: 0 } as never),
      );
    });
    app.post('/core-ws-rest/:batch/unknown-unit', () => {
      throw new ResourceNotFoundError('Unknown business unit');
    });
    app.use(errorMiddleware(createLogger('ingress-test', 'error', sink), () => NOW));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const post = async (path: string) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Ann', lastName: 'Example', customerExtId: 'CUST-SECRET' }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  describe.each([
    ['thrown', false],
    ['rejected', true],
  ])('a plain Error %s by the handler', (_how, asynchronous) => {
    beforeEach(() => {
      failAsync = asynchronous;
    });

    it.each(['/core-ws-rest/validate-batch-customers', '/core-ws-rest/batch-customers'])(
      '%s: 500 { errorCode: "500", errorDescription: "Processing failed", timeElapsedMs }',
      async (path) => {
        const res = await post(path);
        expect(res.status).toBe(500);
        expect(res.body).toEqual({
          errorCode: '500',
          errorDescription: 'Processing failed',
          timeElapsedMs: expect.any(Number),
        });
        expect(Number.isInteger(res.body.timeElapsedMs)).toBe(true);
        expect(res.body.timeElapsedMs as number).toBeGreaterThanOrEqual(0);
      },
    );

    it('simplifiedCustomer: 500 { resultType: "REQUEST_REJECTED", status: 500, error }', async () => {
      const res = await post('/core-ws-rest/simplifiedCustomer');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        resultType: 'REQUEST_REJECTED',
        status: 500,
        error: 'Internal Server Error',
      });
    });

    it('customer (docs/api.md): 500 ErrorBody { errorCode: "INTERNAL_ERROR", errorDescription: "Processing failed" }', async () => {
      const res = await post('/core-ws-rest/customer');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ errorCode: 'INTERNAL_ERROR', errorDescription: 'Processing failed' });
    });

    it('a non-spec endpoint: the same ErrorBody', async () => {
      const res = await post('/api/risk/overrides');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ errorCode: 'INTERNAL_ERROR', errorDescription: 'Processing failed' });
    });
  });

  it.each(['/db/topology-closed', '/db/not-connected', '/db/bulk-connection-lost'])(
    '%s: a client being reconnected is a 503 with Retry-After, not a 500',
    async (path) => {
      const res = await fetch(`${base}${path}`, { method: 'POST' });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ errorCode: 'SERVICE_UNAVAILABLE' });
    },
  );

  it('never leaks the error message or the request to the client, and logs the error without the body', async () => {
    logged.length = 0;
    const res = await post('/core-ws-rest/batch-customers');
    expect(JSON.stringify(res.body)).not.toContain('exploded');
    const lines = logged.join('');
    expect(lines).toContain('unhandled error');
    expect(lines).toContain('"requestId":"req-1"');
    expect(lines).not.toContain('CUST-SECRET');
    expect(lines).not.toContain('Ann');
  });

  it('a not-found raised inside a batch endpoint answers its section 7 404 (NotFound vs Not Found)', async () => {
    expect(await post('/core-ws-rest/validate-batch-customers/unknown-unit')).toEqual({
      status: 404,
      body: { errorCode: '404', errorDescription: 'NotFound', timeElapsedMs: expect.any(Number) },
    });
    expect(await post('/core-ws-rest/batch-customers/unknown-unit')).toEqual({
      status: 404,
      body: { errorCode: '404', errorDescription: 'Not Found', timeElapsedMs: expect.any(Number) },
    });
  });
});
