import http from 'node:http';
import https from 'node:https';
import type { JWK } from 'jose';
import { signCallback } from '@crs/auth';
import type { DeliveryAttempt, DeliveryCloudEvent } from './delivery-store';
import type { CallbackMetrics } from './callback-metrics';

/** What one attempt needs to know about its delivery. */
export interface Sendable {
  cloudEvent: DeliveryCloudEvent;
  endpointId: string;
  businessUnit: string;
  url: string;
}

export interface SentAttempt {
  attempt: DeliveryAttempt;
  ok: boolean;
}

/** The request did not finish within the attempt's timeout. */
class CallbackTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'CALLBACK_TIMEOUT';
}

/**
 * One HTTP attempt of a callback: CloudEvents binary mode, signed with a fresh timestamp (the signing key
 * is imported once, on the first signature), no redirects, aborted after `timeoutMs`. Never throws: a
 * failure is an attempt with `status` null and an error name (`TimeoutError`, or the socket error's code
 * such as `ECONNREFUSED`).
 *
 * Node's http client with keep-alive agents rather than fetch: fetch costs about three times the CPU per
 * request (measured 307 against 968 requests/s on the same machine, docs/decisions/0014).
 */
export class CallbackSender {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };

  constructor(
    private readonly opts: {
      signingKey: JWK;
      timeoutMs: number;
      metrics: CallbackMetrics;
      clock: () => Date;
      /** The endpoint's URL in the current routing; a delivery keeps its queued URL when this gives none. */
      currentUrl?: (endpointId: string, businessUnit: string) => string | undefined;
      /**
       * The data as the receiver gets it: queued payloads keep personal fields encrypted, and they are
       * decrypted only here, for the request (docs/privacy.md); erased values go out as null.
       */
      reveal?: (d: Sendable) => Promise<Record<string, unknown>>;
    },
  ) {}

  async send(d: Sendable): Promise<SentAttempt> {
    const ce = d.cloudEvent;
    const started = process.hrtime.bigint();
    const at = this.opts.clock();
    let status: number | null = null;
    let error: string | undefined;
    try {
      // A key store that does not answer fails this attempt like a receiver that does not: retried later.
      const body = JSON.stringify(this.opts.reveal ? await this.opts.reveal(d) : ce.data);
      const signature = await signCallback({
        privateJwk: this.opts.signingKey,
        body,
        timestamp: Math.floor(at.getTime() / 1000),
        id: ce.id,
      });
      const url = new URL(this.opts.currentUrl?.(d.endpointId, d.businessUnit) ?? d.url);
      status = await this.post(url, body, {
        'content-type': 'application/json',
        'ce-specversion': ce.specversion,
        'ce-type': ce.type,
        'ce-id': ce.id,
        'ce-time': ce.time,
        'ce-source': ce.source,
        'ce-subject': ce.subject,
        ...signature,
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      error =
        err instanceof CallbackTimeoutError
          ? err.name
          : typeof code === 'string'
            ? code
            : err instanceof Error
              ? err.name
              : 'error';
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    this.opts.metrics.latency.labels(d.businessUnit).observe(ms / 1000);
    return {
      attempt: { at, status, ms: Math.round(ms), ...(error ? { error } : {}) },
      ok: status !== null && status >= 200 && status < 300,
    };
  }

  /** Stops keeping idle connections (at shutdown). */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }

  /** POSTs the body and resolves with the status once the whole answer has been read. */
  private post(url: URL, body: string, headers: Record<string, string>): Promise<number> {
    const agent = url.protocol === 'https:' ? this.agents['https:'] : this.agents['http:'];
    const client = url.protocol === 'https:' ? https : http;
    const payload = Buffer.from(body, 'utf8');
    return new Promise<number>((resolve, reject) => {
      const req = client.request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-length': String(payload.length) } },
        (res) => {
          res.on('error', reject);
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.resume();
        },
      );
      const timer = setTimeout(
        () => req.destroy(new CallbackTimeoutError(`no answer within ${this.opts.timeoutMs} ms`)),
        this.opts.timeoutMs,
      );
      req.on('error', reject);
      req.on('close', () => clearTimeout(timer));
      req.end(payload);
    });
  }
}
