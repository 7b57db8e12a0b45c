import type { JWK } from 'jose';
import { signCallback } from '@crs/auth';
import { Counter, Gauge, Histogram, type Logger, type Registry } from '@crs/runtime';
import type { DeliveryStore, QueueEntry } from '@crs/store';
import { nextDelayMs } from './domain/routing';

export interface DispatcherOptions {
  store: DeliveryStore;
  logger: Logger;
  metrics: Registry;
  signingKey: JWK;
  maxAttempts: number;
  timeoutMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  pollMs: number;
  concurrency: number;
  perEndpointConcurrency?: number;
  clock?: () => Date;
  /** The endpoint's URL in the current routing; a delivery keeps its queued URL when this gives none. */
  currentUrl?: (endpointId: string, businessUnit: string) => string | undefined;
}

/**
 * Delivers queued callbacks: due deliveries are sent concurrently (a slow or failing receiver holds only
 * its own slots), one at a time per customer and endpoint so order is kept, with exponential backoff and
 * jitter between attempts and a dead letter after maxAttempts. Nothing sleeps in the Kafka consumer.
 */
export class Dispatcher {
  private readonly inFlight = new Set<string>();
  private readonly perEndpoint = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private ticking = false;
  private readonly outcomes: Counter<'outcome' | 'business_unit'>;
  private readonly dead: Counter<'business_unit'>;
  private readonly latency: Histogram<'business_unit'>;
  private readonly clock: () => Date;

  constructor(private readonly opts: DispatcherOptions) {
    this.clock = opts.clock ?? (() => new Date());
    this.outcomes = new Counter({
      name: 'callback_deliveries_total',
      help: 'Callback delivery attempts by outcome',
      labelNames: ['outcome', 'business_unit'],
      registers: [opts.metrics],
    });
    this.dead = new Counter({
      name: 'callback_dead_letters_total',
      help: 'Callbacks that exhausted their attempts',
      labelNames: ['business_unit'],
      registers: [opts.metrics],
    });
    this.latency = new Histogram({
      name: 'callback_delivery_duration_seconds',
      help: 'Time for one callback attempt',
      labelNames: ['business_unit'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [opts.metrics],
    });
    const store = opts.store;
    new Gauge({
      name: 'callback_queue_pending',
      help: 'Callback deliveries waiting in the queue (due or scheduled for a retry)',
      registers: [opts.metrics],
      async collect() {
        this.set(await store.pendingCount().catch(() => NaN));
      },
    });
  }

  start(): void {
    this.running = true;
    this.schedule(0);
  }

  /** Called when new deliveries were queued, so they go out without waiting for the next poll. */
  kick(): void {
    if (this.running && !this.ticking) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    const deadline = Date.now() + this.opts.timeoutMs + 1000;
    while (this.inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    if (!this.running || this.ticking) return;
    this.ticking = true;
    try {
      const free = this.opts.concurrency - this.inFlight.size;
      if (free > 0) {
        const due = await this.opts.store.due(this.clock(), Math.max(free * 4, 50));
        const chosen = new Map<string, QueueEntry>();
        for (const d of due) {
          const lane = `${d.streamId}|${d.endpointId}`;
          const current = chosen.get(lane);
          if (!this.inFlight.has(lane) && (!current || d.streamVersion < current.streamVersion))
            chosen.set(lane, d);
        }
        const perEndpointLimit =
          this.opts.perEndpointConcurrency ?? Math.max(1, Math.floor(this.opts.concurrency / 4));
        const blocked = await this.opts.store.blockedAmong([...chosen.values()]);
        for (const [lane, d] of chosen) {
          if (this.inFlight.size >= this.opts.concurrency) break;
          if ((this.perEndpoint.get(d.endpointId) ?? 0) >= perEndpointLimit) continue;
          if (blocked.has(d._id)) continue;
          this.inFlight.add(lane);
          this.perEndpoint.set(d.endpointId, (this.perEndpoint.get(d.endpointId) ?? 0) + 1);
          // A store failure (database down) must not end the process: the claim's lease runs out and
          // the delivery is taken up again once the store answers.
          void this.deliver(d)
            .catch((err: unknown) =>
              this.opts.logger.warn(
                { err, deliveryId: d._id, endpointId: d.endpointId },
                'callback delivery bookkeeping failed; retried after the lease',
              ),
            )
            .finally(() => {
              this.inFlight.delete(lane);
              this.perEndpoint.set(d.endpointId, (this.perEndpoint.get(d.endpointId) ?? 1) - 1);
              this.kick();
            });
        }
      }
    } catch (err) {
      this.opts.logger.warn({ err }, 'callback dispatch round failed; retrying');
    } finally {
      this.ticking = false;
      if (this.running) this.schedule(this.opts.pollMs);
    }
  }

  private async deliver(entry: QueueEntry): Promise<void> {
    const now = this.clock();
    const leaseUntil = new Date(now.getTime() + this.opts.timeoutMs + 5000);
    const d = await this.opts.store.claim(entry, now, leaseUntil);
    if (!d) return;
    const ce = d.cloudEvent;
    const body = JSON.stringify(ce.data);
    const started = process.hrtime.bigint();
    const at = this.clock();
    let status: number | null = null;
    let error: string | undefined;
    try {
      const signature = await signCallback({
        privateJwk: this.opts.signingKey,
        body,
        timestamp: Math.floor(at.getTime() / 1000),
        id: ce.id,
      });
      const url = this.opts.currentUrl?.(d.endpointId, d.businessUnit) ?? d.url;
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'ce-specversion': ce.specversion,
          'ce-type': ce.type,
          'ce-id': ce.id,
          'ce-time': ce.time,
          'ce-source': ce.source,
          'ce-subject': ce.subject,
          ...signature,
        },
        body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        redirect: 'manual',
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      error = err instanceof Error ? err.name : 'error';
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    this.latency.labels(d.businessUnit).observe(ms / 1000);
    const ok = status !== null && status >= 200 && status < 300;
    const attempt = { at, status, ms: Math.round(ms), ...(error ? { error } : {}) };
    if (ok) {
      this.outcomes.labels('delivered', d.businessUnit).inc();
      await this.opts.store.recordAttempt(d, attempt, { status: 'delivered' });
    } else if (d.attempts >= this.opts.maxAttempts) {
      this.outcomes.labels('dead_letter', d.businessUnit).inc();
      this.dead.labels(d.businessUnit).inc();
      this.opts.logger.warn(
        { eventId: d.eventId, endpointId: d.endpointId, attempts: d.attempts },
        'callback dead-lettered',
      );
      await this.opts.store.recordAttempt(d, attempt, { status: 'dead' });
    } else {
      this.outcomes.labels('retry', d.businessUnit).inc();
      const delay = nextDelayMs(d.attempts, this.opts.backoffBaseMs, this.opts.backoffMaxMs, Math.random());
      await this.opts.store.recordAttempt(d, attempt, {
        status: 'pending',
        nextAttemptAt: new Date(at.getTime() + delay),
      });
    }
  }
}
