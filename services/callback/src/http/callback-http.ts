import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import {
  MalformedJsonError,
  PayloadTooLargeError,
  ResourceNotFoundError,
  UnsupportedMediaTypeError,
  answerForError,
  type ApiAnswer,
} from '@crs/http';
import type { Health, Logger, Registry } from '@crs/runtime';
import { CallbackApiStartingError } from './api-error';
import type { RedeliveryApi } from './redelivery-api';

/** The largest redelivery body: 100 event ids of 255 characters and the two keys fit many times. */
const MAX_BODY_BYTES = 64 * 1024;
/** Retry-After of a 503 (the ingress puts its own RETRY_AFTER_SECONDS on what it relays). */
const RETRY_AFTER_SECONDS = 5;

export interface CallbackHttpOptions {
  health: Health;
  metrics: Registry;
  logger: Logger;
  /** The redelivery API once the store is connected; until then its routes answer 503. */
  api: () => RedeliveryApi | undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped, so the 413 reaches the client; the connection then closes.
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        reject(new PayloadTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    throw new UnsupportedMediaTypeError('Content-Type must be application/json');
  const text = await readBody(req);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new MalformedJsonError();
  }
}

/** The API's routes: method and path to the answer. */
async function route(req: IncomingMessage, url: URL, api: RedeliveryApi | undefined): Promise<ApiAnswer> {
  const authorization = req.headers.authorization;
  if (!api && url.pathname.startsWith('/api/callbacks/'))
    throw new CallbackApiStartingError(RETRY_AFTER_SECONDS);
  if (api && req.method === 'GET' && url.pathname === '/api/callbacks/deliveries')
    return api.deliveries(authorization, url.searchParams);
  if (api && req.method === 'POST' && url.pathname === '/api/callbacks/redeliver')
    return api.redeliver(authorization, await jsonBody(req));
  throw new ResourceNotFoundError();
}

/**
 * The request handler of the callback service's HTTP port (the service host listens with it on
 * HEALTH_PORT): liveness, readiness and metrics (as every service serves them), and the redelivery API
 * that the ingress forwards `/api/callbacks/*` to (docs/decisions/0026).
 */
export function callbackHttpHandler(opts: CallbackHttpOptions): RequestListener {
  const { health, metrics, logger } = opts;
  const send = (res: ServerResponse, a: ApiAnswer) => {
    res.writeHead(a.status, {
      'content-type': 'application/json; charset=utf-8',
      ...(a.status === 413 ? { connection: 'close' } : {}),
      ...a.headers,
    });
    res.end(JSON.stringify(a.body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.url === '/health/live') {
      const live = health.isLive();
      send(res, { status: live ? 200 : 503, body: { status: live ? 'UP' : 'DOWN' } });
    } else if (req.url === '/health/ready') {
      const r = await health.readiness();
      send(res, { status: r.ready ? 200 : 503, body: { status: r.ready ? 'UP' : 'DOWN', checks: r.checks } });
    } else if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': metrics.contentType });
      res.end(await metrics.metrics());
    } else {
      const started = process.hrtime.bigint();
      const url = new URL(req.url ?? '/', 'http://callback');
      const answer = await route(req, url, opts.api()).catch((err: unknown) =>
        answerForError(err, {
          logger,
          retryAfterSeconds: RETRY_AFTER_SECONDS,
          context: { requestId: req.headers['x-request-id'], route: url.pathname },
        }),
      );
      send(res, answer);
      // Method, path and status only: query strings and bodies may carry identifiers of customers.
      logger.info(
        {
          requestId: req.headers['x-request-id'],
          method: req.method,
          route: url.pathname,
          status: answer.status,
          ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        },
        'request',
      );
    }
  };
  return (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
}
