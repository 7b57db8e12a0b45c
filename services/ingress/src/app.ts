import express, { type Express, type Request } from 'express';
import { randomUUID } from 'node:crypto';
import { Counter, Gauge, Histogram, metricsText, type Logger, type Registry } from '@crs/runtime';
import { ErrorCodes, buildOpenApi, createValidators } from '@crs/contracts';
import { answerClientError } from '@crs/http';
import { createTokenVerifier } from '@crs/auth';
import { ServiceHost, type Listener } from '@crs/host';
import { DurablePublisher, buildAsyncApi, streamKey } from '@crs/messaging';
import { CustomerPrivacy } from '@crs/privacy';
import { ProjectionCatalog, adoptOwnedCollections } from '@crs/store';
import { ClassifierStore } from './classifiers/classifier-store';
import { demoClassifiers } from './classifiers/demo-classifiers';
import { CommandGateway } from './command-gateway';
import { customerRoutes } from './routes/customer-routes';
import { readRoutes } from './routes/read-routes';
import { operationRoutes } from './routes/operation-routes';
import { classifierRoutes } from './routes/classifier-routes';
import { callbackRoutes } from './routes/callback-routes';
import { screeningProxy } from './routes/screening-proxy';
import { riskRoutes } from './routes/risk-routes';
import { privacyRoutes } from './routes/privacy-routes';
import { errorMiddleware } from './http/error-middleware';
import { auditLog } from './http/audit';
import { apiDocsRoutes } from './http/api-docs';
import { ApiError, ResourceNotFoundError } from './http/api-error';
import type { IngressConfig } from './config';

export interface IngressService {
  start(): Promise<void>;
  stop(): Promise<void>;
  port(): number;
  metrics: Registry;
}

const JSON_ROUTES = /^\/(core-ws-rest|api)\//;

/** Builds the HTTP ingress; nothing listens or connects until start(). */
export function buildIngress(
  config: IngressConfig,
  logger: Logger,
  clock: () => Date = () => new Date(),
): IngressService {
  const host = new ServiceHost({ name: 'ingress', config, logger });
  const { metrics, health } = host;
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics],
  });
  let api: Listener | undefined;
  let publisher: DurablePublisher | undefined;
  let gateway: CommandGateway | undefined;
  let draining = false;
  const reclaimed = new Counter({
    name: 'reservations_reclaimed_total',
    help: 'orphan communicationNumber reservations (attempt died before answering, number on no event) reclaimed by a retry of the same customer',
    registers: [metrics],
  });
  new Gauge({
    name: 'reservations_unreleased',
    help: 'communicationNumber reservations of failed requests whose release is still being retried',
    registers: [metrics],
    collect() {
      this.set(gateway?.unreleasedCount() ?? 0);
    },
  });
  new Gauge({
    name: 'kafka_producers_replaced',
    help: 'Kafka producers the publisher retired after a failed or abandoned send since start (decision 0044)',
    registers: [metrics],
    collect() {
      this.set(publisher?.replacedProducers() ?? 0);
    },
  });
  new Gauge({
    name: 'reservations_unrecorded',
    help: 'communicationNumber reservations of acknowledged requests whose publication record is still being written',
    registers: [metrics],
    collect() {
      this.set(gateway?.unrecordedCount() ?? 0);
    },
  });

  const build = (deps: {
    gateway: CommandGateway;
    classifiers: ClassifierStore;
    catalog: ProjectionCatalog;
    verifier: ReturnType<typeof createTokenVerifier>;
    privacy: CustomerPrivacy;
  }): Express => {
    const app = express();
    app.disable('x-powered-by');
    app.set('query parser', 'simple');
    const openapi = buildOpenApi();
    app.use((req, res, next) => {
      const started = process.hrtime.bigint();
      const id =
        (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 100)) ||
        randomUUID();
      Object.assign(req, { id, startedAt: started });
      res.setHeader('x-request-id', id);
      res.on('finish', () => {
        const route =
          (req as Request & { route?: { path?: string } }).route?.path ??
          (res.statusCode === 404 ? 'unmatched' : req.path);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        latency.labels(String(route), req.method, String(res.statusCode)).observe(seconds);
        // Method, route template and status only: paths and bodies may carry personal data.
        logger.info(
          {
            requestId: id,
            method: req.method,
            route,
            status: res.statusCode,
            ms: Math.round(seconds * 1000),
          },
          'request',
        );
      });
      next();
    });
    app.get('/health/live', (_req, res) => {
      res.status(health.isLive() ? 200 : 503).json({ status: health.isLive() ? 'UP' : 'DOWN' });
    });
    app.get('/health/ready', async (_req, res) => {
      const r = await health.readiness();
      const ready = r.ready && !draining;
      res.status(ready ? 200 : 503).json({ status: ready ? 'UP' : 'DOWN', checks: r.checks });
    });
    const metricsOfService = metricsText(metrics);
    app.get('/metrics', async (_req, res) => {
      try {
        res.type(metrics.contentType).send(await metricsOfService());
      } catch (err) {
        // A worker whose primary does not answer: no partial figures (a scrape of one worker's counters
        // would look like the service's counters going backwards).
        logger.warn({ err }, 'metrics unavailable');
        res.status(503).type('text/plain').send('metrics unavailable\n');
      }
    });
    app.get('/openapi.json', (_req, res) => {
      res.json(openapi);
    });
    app.use(
      apiDocsRoutes({
        openapiUrl: '/openapi.json',
        title: 'Customer Risk Import Service API',
        asyncapi: () =>
          buildAsyncApi({
            topicPrefix: config.TOPIC_PREFIX,
            partitions: config.TOPIC_PARTITIONS,
            replicas: config.TOPIC_REPLICATION_FACTOR,
          }),
      }),
    );
    // Before the media-type check and the JSON parser, so requests they refuse are audited too.
    if (config.AUDIT_LOG) app.use(auditLog({ logger, verifier: deps.verifier }));
    app.use((req, _res, next) => {
      if (
        (req.method === 'POST' || req.method === 'PUT') &&
        JSON_ROUTES.test(req.path) &&
        !req.is('application/json')
      ) {
        next(new ApiError(ErrorCodes.UnsupportedMediaType, 415, 'Content-Type must be application/json'));
        return;
      }
      next();
    });
    app.use(express.json({ limit: config.MAX_BODY_BYTES, strict: true, type: 'application/json' }));
    const validators = createValidators();
    app.use(
      customerRoutes({
        verifier: deps.verifier,
        validators,
        classifiers: deps.classifiers,
        gateway: deps.gateway,
        maxBatchSize: config.MAX_BATCH_SIZE,
        retryAfterSeconds: config.RETRY_AFTER_SECONDS,
      }),
    );
    app.use(classifierRoutes({ verifier: deps.verifier, classifiers: deps.classifiers }));
    app.use(readRoutes({ verifier: deps.verifier, catalog: deps.catalog, privacy: deps.privacy }));
    app.use(
      privacyRoutes({
        verifier: deps.verifier,
        catalog: deps.catalog,
        gateway: deps.gateway,
        privacy: deps.privacy,
        retention: config.retention,
        retryAfterSeconds: config.RETRY_AFTER_SECONDS,
        clock,
      }),
    );
    app.use(
      screeningProxy({
        screeningApiUrl: config.SCREENING_API_URL,
        timeoutMs: 10000,
        retryAfterSeconds: config.RETRY_AFTER_SECONDS,
      }),
    );
    app.use(
      callbackRoutes({
        verifier: deps.verifier,
        validators,
        callbackApi: {
          url: config.CALLBACK_API_URL,
          timeoutMs: 10000,
          retryAfterSeconds: config.RETRY_AFTER_SECONDS,
        },
      }),
    );
    app.use(
      operationRoutes({
        verifier: deps.verifier,
        catalog: deps.catalog,
        publisher: () => publisher,
        topicPrefix: config.TOPIC_PREFIX,
        retryAfterSeconds: config.RETRY_AFTER_SECONDS,
        clock,
      }),
    );
    app.use(
      riskRoutes({
        verifier: deps.verifier,
        validators,
        catalog: deps.catalog,
        gateway: deps.gateway,
        retryAfterSeconds: config.RETRY_AFTER_SECONDS,
        clock,
      }),
    );
    app.use((_req, _res, next) => next(new ResourceNotFoundError()));
    app.use(errorMiddleware(logger, clock, config.RETRY_AFTER_SECONDS));
    return app;
  };

  return {
    metrics,
    port: () => api?.port() ?? 0,
    start: () =>
      host.start(async () => {
        // With its watchdog and the `mongo` readiness check; the store closes after the gateway.
        const { client, db, ownDb } = await host.connectStore();
        host.onStop(() => gateway?.close());
        // Reservations of a release before owner databases (decision 0017) move before any request is served.
        await adoptOwnedCollections(client, config, 'ingress', logger);
        const classifiers = new ClassifierStore(db, config.CLASSIFIER_CACHE_MS);
        await classifiers.ensureIndexes();
        if (config.SEED_DEMO_CLASSIFIERS) {
          const added = await classifiers.seed(demoClassifiers('DEMO'));
          if (added > 0) logger.info({ added }, 'seeded classifiers of business unit DEMO');
        }
        const { kafka, serde, topics } = await host.connectMessaging();
        const outgoing = new DurablePublisher(kafka, serde, config.KAFKA_ACK_TIMEOUT_MS);
        publisher = outgoing;
        host.onStop(() => outgoing.disconnect().catch(() => undefined));
        await outgoing.connect().catch((err: unknown) => logger.warn({ err }, 'Kafka not reachable yet'));
        const verifier = createTokenVerifier({
          ...(config.AUTH_JWKS_URL ? { jwksUrl: config.AUTH_JWKS_URL } : { jwksFile: config.AUTH_JWKS_FILE }),
          issuer: config.AUTH_ISSUER,
          audience: config.AUTH_AUDIENCE,
        });
        const catalog = new ProjectionCatalog(db);
        // docs/privacy.md: personal fields are encrypted before a command is published.
        const privacy = CustomerPrivacy.fromConfig(config, ownDb('keys'), config.PRIVACY_REQUIRED);
        if (!privacy.enabled)
          logger.warn('PRIVACY_KEK_FILE is not set: personal data is published and stored in plain');
        gateway = new CommandGateway(ownDb('ingress'), outgoing, topics.customerCommands, clock, {
          protect: async (items) => {
            const records = items.flatMap((item, index) =>
              item.type === 'ImportCustomer' || item.type === 'ImportSimplifiedCustomer'
                ? [
                    {
                      index,
                      streamId: streamKey(item.businessUnit, item.customerExtId),
                      customer: (item.data as { customer: unknown }).customer,
                    },
                  ]
                : [],
            );
            if (records.length === 0) return items;
            const encrypted = await privacy.encryptCustomers(records);
            const out = [...items];
            records.forEach((r, i) => {
              const item = out[r.index]!;
              out[r.index] = { ...item, data: { ...item.data, customer: encrypted[i] } as typeof item.data };
            });
            return out;
          },
          onReleaseFailed: (err, pending) =>
            logger.warn(
              { err, pending },
              'releasing a communicationNumber reservation failed; retrying in the background',
            ),
          onRecordFailed: (err, pending) =>
            logger.warn(
              { err, pending },
              'recording a published communicationNumber reservation failed; retrying in the background',
            ),
          orphanAfterMs: config.RESERVATION_ORPHAN_AFTER_SEC * 1000,
          onReclaimed: (key) => {
            reclaimed.inc();
            // The key is the business unit and the communicationNumber: technical identifiers.
            logger.info({ key }, 'orphan communicationNumber reservation reclaimed by a retry');
          },
        });
        const app = build({ gateway, classifiers, catalog, verifier, privacy });
        health.addReadinessCheck('kafka', () => publisher?.isConnected() ?? false);
        const listener = await host.listen(app, {
          port: config.HTTP_PORT,
          host: config.HTTP_HOST,
          keepAliveTimeoutMs: 65000,
          onClientError: answerClientError,
        });
        api = listener;
        // Pushed last, so it runs first: readiness goes down so load balancers stop routing, in-flight
        // requests then finish; then the publisher, the gateway and the store stop.
        host.onStop(async () => {
          draining = true;
          await listener.close();
        });
        logger.info({ port: listener.port() }, 'ingress listening');
      }),
    stop: () => host.stop(),
  };
}
