import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from 'pino';

/** IPC messages between a worker's `/metrics` route and the primary (prom-client's own use other types). */
const METRICS_REQUEST = 'crs:cluster-metrics-request';
const METRICS_REPLY = 'crs:cluster-metrics-reply';

export interface WorkerPoolOptions {
  /** Processes that share the listening port; 1 runs `run` in this process and forks nothing. */
  workers: number;
  logger: Logger;
  /** How long the primary waits for its workers after SIGTERM before it kills them (then exits 1). */
  shutdownTimeoutMs: number;
  /** Starts the service in this process (a worker, or the only process). */
  run: () => void;
  /** A worker that exits unasked is replaced; this many exits within `restartWindowMs` stop the pool (exit 1). */
  maxRestarts?: number;
  restartWindowMs?: number;
}

/**
 * Runs an HTTP service in `workers` processes that share its port (node:cluster: the primary accepts
 * connections and hands them to the workers in turn). Why: a Node process uses one core for JavaScript, and
 * the ingress is bound by it (docs/decisions/0056); on a host with cores to spare, as many workers as cores
 * serve more requests. In Kubernetes the ingress scales by replicas instead, and the chart keeps one worker
 * per pod, so probes and scrapes reach the process they describe.
 *
 * The primary does no service work: it forks, replaces a worker that exits unasked (up to `maxRestarts`
 * in `restartWindowMs`; more means something is wrong that a restart does not fix, and the pool exits 1 so
 * its supervisor sees it), forwards SIGTERM/SIGINT to every worker and exits once they have stopped
 * (0 if all stopped cleanly), and answers the workers' `/metrics` with every worker's metrics aggregated
 * (prom-client's AggregatorRegistry; counters and histograms summed). A worker whose primary dies exits
 * at once (node:cluster), like a single process that was killed.
 */
export function runWorkerPool(opts: WorkerPoolOptions): void {
  if (opts.workers <= 1 || cluster.isWorker) {
    opts.run();
    return;
  }
  const { logger } = opts;
  const maxRestarts = opts.maxRestarts ?? 5;
  const restartWindowMs = opts.restartWindowMs ?? 60_000;
  const aggregator = new AggregatorRegistry();
  const restarts: number[] = [];
  let stopping = false;

  const fork = (index: number): void => {
    const worker = cluster.fork({ CRS_WORKER_INDEX: String(index) });
    worker.on('message', (msg: unknown) => {
      const m = msg as { type?: unknown; id?: unknown };
      if (m?.type !== METRICS_REQUEST) return;
      aggregator.clusterMetrics().then(
        (text) => worker.isConnected() && worker.send({ type: METRICS_REPLY, id: m.id, text }),
        (err: unknown) =>
          worker.isConnected() && worker.send({ type: METRICS_REPLY, id: m.id, error: String(err) }),
      );
    });
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      const now = Date.now();
      restarts.push(now);
      while ((restarts[0] ?? now) < now - restartWindowMs) restarts.shift();
      if (restarts.length > maxRestarts) {
        logger.fatal(
          { worker: index, code, signal, restarts: restarts.length, restartWindowMs },
          'workers keep exiting: stopping the pool',
        );
        stop('workersFailing', true);
        return;
      }
      logger.error({ worker: index, code, signal }, 'worker exited: starting a new one');
      setTimeout(() => {
        if (!stopping) fork(index);
      }, 1000).unref();
    });
  };

  /** `failed`: the pool stops because its workers keep exiting, so it exits 1 however they stop. */
  const stop = (reason: string, failed = false) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'stopping workers');
    const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    let unclean = failed;
    let left = live.length;
    const done = () => {
      logger.info({ clean: !unclean }, 'workers stopped');
      process.exit(unclean ? 1 : 0);
    };
    if (left === 0) done();
    for (const w of live) {
      w.once('exit', (code, signal) => {
        if (code !== 0 || signal) unclean = true;
        if (--left === 0) done();
      });
      w.process.kill('SIGTERM');
    }
    setTimeout(() => {
      logger.error(
        { shutdownTimeoutMs: opts.shutdownTimeoutMs },
        'workers did not stop in time: killing them',
      );
      for (const w of live) if (!w.isDead()) w.process.kill('SIGKILL');
      process.exit(1);
    }, opts.shutdownTimeoutMs + 2000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  logger.info({ workers: opts.workers }, 'starting workers');
  for (let i = 0; i < opts.workers; i++) fork(i);
}

/** This process's index in its worker pool, or undefined outside one. */
export function workerIndex(): number | undefined {
  if (!cluster.isWorker) return undefined;
  const index = Number(process.env.CRS_WORKER_INDEX);
  return Number.isInteger(index) ? index : undefined;
}

/**
 * The text a service's `/metrics` answers with: its own registry alone, or, in a worker pool, every
 * worker's registry aggregated by the primary (a scrape lands on one worker; it must see the service).
 */
export function metricsText(registry: Registry, timeoutMs = 5000): () => Promise<string> {
  if (!cluster.isWorker || typeof process.send !== 'function') return () => registry.metrics();
  // Makes this worker answer the primary's aggregation requests with this registry.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const onMessage = (msg: unknown) => {
        const m = msg as { type?: unknown; id?: unknown; text?: unknown; error?: unknown };
        if (m?.type !== METRICS_REPLY || m.id !== id) return;
        clearTimeout(timer);
        process.off('message', onMessage);
        if (typeof m.text === 'string') resolve(m.text);
        else reject(new Error(`cluster metrics: ${String(m.error)}`));
      };
      const timer = setTimeout(() => {
        process.off('message', onMessage);
        reject(new Error('cluster metrics: the primary did not answer'));
      }, timeoutMs);
      process.on('message', onMessage);
      process.send?.({ type: METRICS_REQUEST, id });
    });
}
