import type { Request, Response } from 'express';
import { ServiceUnavailableError } from '@crs/http';

const FORWARDED_REQUEST_HEADERS = ['authorization', 'content-type', 'x-request-id', 'accept'];
const RELAYED_RESPONSE_HEADERS = ['content-type', 'www-authenticate', 'retry-after'];

export interface Upstream {
  /** Base URL of the service's HTTP API, without a trailing slash. */
  url: string;
  timeoutMs: number;
  retryAfterSeconds: number;
}

/**
 * Sends a request to another service's HTTP API on behalf of the client's request `req`: its token,
 * request id and media types go along unchanged. An upstream that cannot be reached (refused, timed
 * out) is a 503 with Retry-After, like any other dependency that is down.
 */
export async function callUpstream(
  upstream: Upstream,
  req: Request,
  pathAndQuery: string,
  body?: string,
): Promise<globalThis.Response> {
  const headers: Record<string, string> = {};
  for (const h of FORWARDED_REQUEST_HEADERS) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  // The ingress's own request id (the client's, or one it made), so both services log the same one.
  const id = (req as Request & { id?: string }).id;
  if (id) headers['x-request-id'] = id;
  try {
    return await fetch(`${upstream.url}${pathAndQuery}`, {
      method: req.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      signal: AbortSignal.timeout(upstream.timeoutMs),
      redirect: 'manual',
    });
  } catch {
    throw new ServiceUnavailableError(upstream.retryAfterSeconds);
  }
}

/**
 * Answers the client with the upstream's status, body and the headers that matter to it; with
 * `retryAfterSeconds`, a 503 carries the ingress's own Retry-After.
 */
export async function relay(
  res: Response,
  answer: globalThis.Response,
  retryAfterSeconds?: number,
): Promise<void> {
  for (const h of RELAYED_RESPONSE_HEADERS) {
    const v = answer.headers.get(h);
    if (v) res.setHeader(h, v);
  }
  if (retryAfterSeconds !== undefined && answer.status === 503)
    res.setHeader('retry-after', String(retryAfterSeconds));
  res.status(answer.status).send(Buffer.from(await answer.arrayBuffer()));
}
