import type { Duplex } from 'node:stream';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Health, createMetricsRegistry, startHealthServer, type Logger, type Registry } from '@crs/runtime';
import { setUpMessaging } from '@crs/messaging';
import {
  connectMongo,
  MongoWatchdog,
  type MongoConnection,
  type MongoSettings,
  type MongoWatchdogOptions,
} from '@crs/store';
import { hostMessaging, type HostMessaging } from './host-messaging';
import { StopStack, type StopStep } from './stop-stack';

/** Where the health (or health-and-API) server listens. */
export interface HealthSettings {
  HEALTH_PORT: number;
  HEALTH_HOST: string;
}

/** The connection settings of Kafka, the schema registry and the topics (`setUpMessaging`). */
export type MessagingSettings = Parameters<typeof setUpMessaging>[0];

/** What every service's configuration holds (the common settings of @crs/runtime). */
export type HostSettings = HealthSettings & MessagingSettings;

/** A part of a service with a lifecycle of its own: a consumer, a processor, a decider shell, a job. */
export interface HostedPart {
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
  /** Read by the part's readiness check, when it has one. */
  isReady?(): boolean;
  /** False once the part has stopped making progress for good (a stalled batch: decision 0087); fails liveness. */
  isLive?(): boolean;
}

/** An HTTP server the service listens with; `close` stops accepting and waits for requests under way. */
export interface Listener {
  port(): number;
  /** Idempotent: the host closes it again, as a no-op, when it was closed earlier on purpose. */
  close(): Promise<void>;
}

/** Where `listen` listens, when the service's HTTP port is not the health port (the ingress's HTTP_PORT). */
export interface ListenOptions {
  port: number;
  host: string;
  /** The server's keep-alive timeout (Node's default when absent). */
  keepAliveTimeoutMs?: number;
  /**
   * Answers a request Node's parser refused before the handler saw it (`clientError`; Node's own empty
   * answers when absent). The ingress answers them in its error shape (`answerClientError`, @crs/http).
   */
  onClientError?: (err: Error & { code?: string }, socket: Duplex) => void;
}

export interface ServiceHostOptions<C extends HostSettings> {
  /** The `service` label of every metric. */
  name: string;
  config: C;
  logger: Logger;
  /** The Kafka client id, when it is not `name`. */
  clientId?: string;
}

/**
 * What every service does around its own work (docs/decisions/0025): the metrics registry and health,
 * the health server, the store connection with its watchdog and readiness check, the messaging set-up,
 * and the shutdown. Each thing started pushes its stop, so `stop` runs in reverse order of start:
 * consumers stop before the store closes and the health server closes last. A start that fails half-way
 * stops what it had started, then rethrows.
 *
 * An app builds one host, calls `host.start(async () => { ... })` with its own parts, and passes `stop` on.
 */
export class ServiceHost<C extends HostSettings = HostSettings> {
  readonly metrics: Registry;
  readonly health = new Health();
  readonly config: C;
  private readonly logger: Logger;
  private readonly clientId: string;
  private readonly stops: StopStack;
  /** Parts started without a readiness name, numbered for their liveness checks. */
  private unnamedParts = 0;
  private portOf: () => number = () => 0;

  constructor(options: ServiceHostOptions<C>) {
    this.config = options.config;
    this.logger = options.logger;
    this.clientId = options.clientId ?? options.name;
    this.metrics = createMetricsRegistry(options.name);
    this.stops = new StopStack((err) => this.logger.error({ err }, 'error while stopping'));
  }

  /**
   * Runs the service's start; once it finished the service counts as started (readiness). When it
   * fails, what it had started is stopped in reverse order and the failure is rethrown.
   */
  async start(body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (err) {
      await this.stops.unwind().catch((stopErr: unknown) => {
        this.logger.error({ err: stopErr }, 'error while stopping');
      });
      throw err;
    }
    this.health.markStarted();
  }

  /** Stops everything started, in reverse order of start. Idempotent. */
  stop(): Promise<void> {
    return this.stops.unwind();
  }

  /** Registers a stop step: it runs before those registered earlier. */
  onStop(step: StopStep): void {
    this.stops.push(step);
  }

  /** The port of the health server (or the listener on the health port); 0 before it listens. */
  healthPort(): number {
    return this.portOf();
  }

  /** Starts the health server (/health/live, /health/ready, /metrics) on HEALTH_PORT; it closes last. */
  async serveHealth(): Promise<void> {
    const server = await startHealthServer({
      health: this.health,
      metrics: this.metrics,
      port: this.config.HEALTH_PORT,
      host: this.config.HEALTH_HOST,
    });
    this.portOf = () => server.port;
    this.stops.push(() => server.close());
  }

  /**
   * Listens with the service's own request handler on HEALTH_PORT, for a service that serves its API
   * beside health and metrics, or where `at` says (then `healthPort` stays as it is). Its close waits
   * for the requests under way and ends idle keep-alive connections.
   */
  async listen(handler: RequestListener, at?: ListenOptions): Promise<Listener> {
    const server = createServer(handler);
    if (at?.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = at.keepAliveTimeoutMs;
    if (at?.onClientError) server.on('clientError', at.onClientError);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at?.port ?? this.config.HEALTH_PORT, at?.host ?? this.config.HEALTH_HOST, resolve);
    });
    const listener = closableListener(server);
    if (!at) this.portOf = () => listener.port();
    this.stops.push(() => listener.close());
    return listener;
  }

  /**
   * Connects the store (one client, `store_commands_total` in the metrics) and always watches it: a
   * stuck client is reconnected (`MongoWatchdog`: pinged every 5 s, stuck after 30 s). Unless
   * `readiness` is false, a `mongo` readiness check pings it too (a service whose HTTP answers do not
   * need the store, like screening's search, leaves it out). `watchdog` changes the timings (tests).
   * The watchdog stops, then the client closes.
   */
  async connectStore(
    this: ServiceHost<C & MongoSettings>,
    options: {
      readiness?: boolean;
      watchdog?: Pick<MongoWatchdogOptions, 'staleAfterMs' | 'pingEveryMs'>;
    } = {},
  ): Promise<MongoConnection> {
    const mongo = await connectMongo(this.config, this.metrics);
    this.stops.push(() => mongo.client.close());
    const watchdog = new MongoWatchdog({
      ...mongo,
      settings: this.config,
      logger: this.logger,
      ...options.watchdog,
    });
    this.stops.push(() => watchdog.stop());
    if (options.readiness !== false) this.health.addReadinessCheck('mongo', () => watchdog.ping());
    return mongo;
  }

  /**
   * Kafka and the schema registry, with the topics and schemas ensured (`setUpMessaging`), and the
   * options every consumer shares (`consumerOptions`, `processorOptions`, `readerOptions`).
   */
  async connectMessaging(): Promise<HostMessaging> {
    const messaging = await setUpMessaging(this.config, this.clientId, this.logger);
    return hostMessaging(messaging, this.logger, this.metrics);
  }

  /**
   * Starts a part, its stop registered first (a part that fails half-way through its start is still
   * stopped). With `readiness`, the service is ready only while `part.isReady()` says so.
   */
  async startPart<P extends HostedPart>(part: P, readiness?: string): Promise<P> {
    if (readiness) this.health.addReadinessCheck(readiness, () => part.isReady?.() ?? false);
    const { isLive } = part;
    if (isLive)
      this.health.addLivenessCheck(readiness ?? `part-${++this.unnamedParts}`, () => isLive.call(part));
    this.stops.push(() => part.stop());
    await part.start();
    return part;
  }
}

function closableListener(server: Server): Listener {
  let closing: Promise<void> | undefined;
  return {
    port: () => (server.address() as AddressInfo | null)?.port ?? 0,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
