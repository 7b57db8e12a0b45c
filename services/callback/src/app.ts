import { readFileSync } from 'node:fs';
import type { MongoClient } from 'mongodb';
import type { JWK } from 'jose';
import {
  Health,
  createMetricsRegistry,
  startHealthServer,
  type HealthServer,
  type Logger,
} from '@crs/runtime';
import { toCloudEvent, type CustomerEvent } from '@crs/contracts';
import { AtLeastOnceConsumer, setUpMessaging } from '@crs/messaging';
import { DeliveryStore, connectMongo, watchMongo, type MongoWatchdog } from '@crs/store';
import { Dispatcher } from './dispatcher';
import { currentUrlOf, endpointsFor, parseRouting, type CallbackRouting } from './domain/routing';
import type { CallbackConfig } from './config';

export interface CallbackService {
  start(): Promise<void>;
  stop(): Promise<void>;
  healthPort(): number;
}

/** What a callback carries: the event's data, without the customer record itself. */
function callbackData(event: CustomerEvent): Record<string, unknown> {
  switch (event.type) {
    case 'CustomerCreated':
    case 'CustomerUpdated': {
      const c = event.data.customer;
      return {
        change: event.type === 'CustomerCreated' ? 'CREATED' : 'UPDATED',
        customerStatus: c.customerStatus ?? null,
        simplified: event.data.simplified === true,
        flags: {
          sanctioned: c.isSanctioned ?? null,
          pep: c.isPEP ?? null,
          inAdverseMedia: c.isInAdverseMedia ?? null,
          inInternalList: c.isInInternalList ?? null,
        },
        updatedAt: event.occurredAt,
      };
    }
    default:
      return event.data as unknown as Record<string, unknown>;
  }
}

export function buildCallbackService(config: CallbackConfig, logger: Logger): CallbackService {
  const metrics = createMetricsRegistry('callback');
  const health = new Health();
  let consumer: AtLeastOnceConsumer<CustomerEvent> | undefined;
  let dispatcher: Dispatcher | undefined;
  let client: MongoClient | undefined;
  let watchdog: MongoWatchdog | undefined;
  let server: HealthServer | undefined;

  const routing: CallbackRouting = parseRouting(
    config.CALLBACK_ENDPOINTS ||
      (config.CALLBACK_CONFIG_FILE ? readFileSync(config.CALLBACK_CONFIG_FILE, 'utf8') : '{"endpoints":[]}'),
  );
  const signingKey = JSON.parse(readFileSync(config.CALLBACK_SIGNING_KEY_FILE, 'utf8')) as JWK;

  return {
    healthPort: () => server?.port ?? 0,
    async start() {
      server = await startHealthServer({
        health,
        metrics,
        port: config.HEALTH_PORT,
        host: config.HEALTH_HOST,
      });
      const mongo = await connectMongo(config);
      client = mongo.client;
      watchdog = watchMongo(mongo, config, logger);
      const store = new DeliveryStore(mongo.db);
      await store.ensureIndexes();
      const restored = await store.restoreQueue();
      if (restored > 0) logger.info({ restored }, 'pending callbacks put back in the queue');
      dispatcher = new Dispatcher({
        store,
        logger,
        metrics,
        signingKey,
        maxAttempts: config.CALLBACK_MAX_ATTEMPTS,
        timeoutMs: config.CALLBACK_TIMEOUT_MS,
        backoffBaseMs: config.CALLBACK_BACKOFF_BASE_MS,
        backoffMaxMs: config.CALLBACK_BACKOFF_MAX_MS,
        pollMs: config.CALLBACK_POLL_MS,
        concurrency: config.CALLBACK_CONCURRENCY,
        currentUrl: (endpointId, businessUnit) => currentUrlOf(routing, endpointId, businessUnit),
      });
      dispatcher.start();
      const { kafka, serde, topics, prefix } = await setUpMessaging(config, 'callback', logger);
      consumer = new AtLeastOnceConsumer<CustomerEvent>({
        kafka,
        serde,
        logger,
        metrics,
        groupId: `${prefix}${config.CONSUMER_GROUP}`,
        topics: [topics.customerEvents],
        handle: async ({ value: event }) => {
          const data = callbackData(event);
          const ce = toCloudEvent({ ...event, data: event.data as unknown as Record<string, unknown> }, data);
          if (!ce) return;
          const now = new Date();
          for (const endpoint of endpointsFor(routing, event.businessUnit, ce.type)) {
            await store.enqueue(
              {
                _id: `${event.eventId}|${endpoint.id}`,
                eventId: event.eventId,
                endpointId: endpoint.id,
                url: endpoint.url,
                businessUnit: event.businessUnit,
                communicationNumber: event.correlationId,
                customerExtId: event.customerExtId,
                streamId: event.streamId,
                streamVersion: event.streamVersion,
                cloudEvent: ce,
                nextAttemptAt: now,
              },
              now,
            );
          }
          dispatcher?.kick();
        },
      });
      health.addReadinessCheck('events', () => consumer?.isReady() ?? false);
      health.addReadinessCheck('mongo', () => watchdog!.ping());
      await consumer.start();
      health.markStarted();
    },
    async stop() {
      await consumer?.stop();
      await dispatcher?.stop();
      await watchdog?.stop();
      await client?.close();
      await server?.close();
    },
  };
}
