import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export type HealthCheck = () => Promise<boolean> | boolean;

/**
 * Liveness means the process can make progress; readiness means it can do its job now (a consumer is
 * connected and has partitions assigned, the ingress can reach Kafka and its store).
 */
export class Health {
  private readonly readinessChecks = new Map<string, HealthCheck>();
  private readonly livenessChecks = new Map<string, () => boolean>();
  private live = true;
  private started = false;

  /** Not ready before start() finished, whatever the checks say. */
  markStarted(): void {
    this.started = true;
  }

  addReadinessCheck(name: string, check: HealthCheck): void {
    this.readinessChecks.set(name, check);
  }

  markDead(): void {
    this.live = false;
  }

  /**
   * A part that can tell it no longer makes progress although the event loop turns (a consumer whose
   * batch hangs: decision 0087); while `check` says false the process is not live and is restarted.
   */
  addLivenessCheck(name: string, check: () => boolean): void {
    this.livenessChecks.set(name, check);
  }

  isLive(): boolean {
    if (!this.live) return false;
    for (const check of this.livenessChecks.values()) if (!check()) return false;
    return true;
  }

  async readiness(): Promise<{ ready: boolean; checks: Record<string, boolean> }> {
    const checks: Record<string, boolean> = {};
    for (const [name, check] of this.readinessChecks) {
      try {
        checks[name] = await check();
      } catch {
        checks[name] = false;
      }
    }
    checks.started = this.started;
    return { ready: this.live && Object.values(checks).every(Boolean), checks };
  }
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** A tiny HTTP server for /health/live, /health/ready and /metrics, for services without an API. */
export async function startHealthServer(opts: {
  health: Health;
  metrics: Registry;
  port: number;
  host: string;
}): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.url === '/health/live') {
        const live = opts.health.isLive();
        res.writeHead(live ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: live ? 'UP' : 'DOWN' }));
      } else if (req.url === '/health/ready') {
        const r = await opts.health.readiness();
        res.writeHead(r.ready ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: r.ready ? 'UP' : 'DOWN', checks: r.checks }));
      } else if (req.url === '/metrics') {
        res.writeHead(200, { 'content-type': opts.metrics.contentType });
        res.end(await opts.metrics.metrics());
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"errorCode":"NOT_FOUND"}');
      }
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
