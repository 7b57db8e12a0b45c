import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import type { Logger } from '@crs/runtime';
import { createTokenVerifier } from '@crs/auth';
import { createValidators, type CustomerEvent } from '@crs/contracts';
import { ServiceHost } from '@crs/host';
import { AtLeastOnceConsumer, streamKey } from '@crs/messaging';
import { adoptOwnedCollections, indexDropped } from '@crs/store';
import { DeliveryStore } from './delivery-store';
import { BatchDelivery } from './batch-delivery';
import { createCallbackMetrics } from './callback-metrics';
import { CallbackSender } from './callback-sender';
import { CustomerPrivacy } from '@crs/privacy';
import { deliveriesOf } from './deliveries-of';
import { DeliverySlots } from './delivery-slots';
import { Dispatcher } from './dispatcher';
import { currentUrlOf, parseRouting, type CallbackRouting } from './domain/routing';
import { callbackHttpHandler } from './http/callback-http';
import { RedeliveryApi } from './http/redelivery-api';
import { QueuedLanes } from './queued-lanes';
import type { CallbackConfig } from './config';

export interface CallbackService {
  start(): Promise<void>;
  stop(): Promise<void>;
  healthPort(): number;
}

export function buildCallbackService(config: CallbackConfig, logger: Logger): CallbackService {
  const host = new ServiceHost({ name: 'callback', config, logger });
  const { metrics, health } = host;
  let api: RedeliveryApi | undefined;

  const routing: CallbackRouting = parseRouting(
    config.CALLBACK_ENDPOINTS ||
      (config.CALLBACK_CONFIG_FILE ? readFileSync(config.CALLBACK_CONFIG_FILE, 'utf8') : '{"endpoints":[]}'),
  );
  const signingKey = JSON.parse(readFileSync(config.CALLBACK_SIGNING_KEY_FILE, 'utf8')) as JWK;

  return {
    healthPort: () => host.healthPort(),
    start: () =>
      host.start(async () => {
        // Health, metrics and the redelivery API on the health port; it closes last.
        await host.listen(callbackHttpHandler({ health, metrics, logger, api: () => api }));
        const mongo = await host.connectStore();
        // Deliveries, queue and progress of a release before owner databases (decision 0017) move first.
        await adoptOwnedCollections(mongo.client, config, 'callback', logger);
        const store = new DeliveryStore(mongo.ownDb('callback'));
        // docs/privacy.md: queued payloads stay encrypted; they are decrypted for each request only.
        const privacy = CustomerPrivacy.fromConfig(config, mongo.ownDb('keys'), config.PRIVACY_REQUIRED);
        // decision 0066: a log that is empty now is keyed by communication; one written before keeps its ids,
        // and may hold what older releases' writes left, repaired here (decision 0067; pending deliveries by
        // the `status` index, FerretDB too since its patch 0008). A keyed log has nothing to repair, and no
        // communication-number index (decision 0074).
        const keyed = await store.prepare({ onDropped: indexDropped(logger) });
        if (!keyed) {
          logger.warn(
            'callback_deliveries holds deliveries written before its keys (decision 0066): the delivery-log API and redeliver by communication read the whole log on FerretDB (docs/operations.md)',
          );
          const restored = await store.restoreQueue();
          if (restored > 0) logger.info({ restored }, 'pending callbacks put back in the queue');
        }
        const clock = () => new Date();
        // The delivery log and redelivery, forwarded by the ingress (/api/callbacks/*: decision 0026).
        api = new RedeliveryApi({
          verifier: createTokenVerifier({
            ...(config.AUTH_JWKS_URL
              ? { jwksUrl: config.AUTH_JWKS_URL }
              : { jwksFile: config.AUTH_JWKS_FILE }),
            issuer: config.AUTH_ISSUER,
            audience: config.AUTH_AUDIENCE,
          }),
          validators: createValidators(),
          store,
          clock,
        });
        const deliveryMetrics = createCallbackMetrics(metrics);
        const sender = new CallbackSender({
          signingKey,
          timeoutMs: config.CALLBACK_TIMEOUT_MS,
          metrics: deliveryMetrics,
          clock,
          currentUrl: (endpointId, businessUnit) => currentUrlOf(routing, endpointId, businessUnit),
          reveal: async (d) => {
            const r = await privacy.revealEventData(
              streamKey(d.businessUnit, d.cloudEvent.subject),
              d.cloudEvent.data,
            );
            return r.erased ? { ...r.data, personalDataErased: true } : r.data;
          },
        });
        host.onStop(() => sender.close());
        const slots = new DeliverySlots(
          config.CALLBACK_CONCURRENCY,
          config.CALLBACK_ENDPOINT_CONCURRENCY || Math.max(1, Math.floor(config.CALLBACK_CONCURRENCY / 4)),
        );
        const lanes = new QueuedLanes();
        const retry = {
          maxAttempts: config.CALLBACK_MAX_ATTEMPTS,
          timeoutMs: config.CALLBACK_TIMEOUT_MS,
          backoffBaseMs: config.CALLBACK_BACKOFF_BASE_MS,
          backoffMaxMs: config.CALLBACK_BACKOFF_MAX_MS,
        };
        const dispatcher = await host.startPart(
          new Dispatcher({
            ...retry,
            store,
            logger,
            registry: metrics,
            metrics: deliveryMetrics,
            sender,
            slots,
            lanes,
            pollMs: config.CALLBACK_POLL_MS,
            slowAfterMs: config.CALLBACK_HANDOVER_MS,
            slowForMs: config.CALLBACK_SLOW_ENDPOINT_MS,
            clock,
          }),
        );
        const batches = new BatchDelivery({
          ...retry,
          store,
          logger,
          metrics: deliveryMetrics,
          sender,
          slots,
          lanes,
          handoverMs: config.CALLBACK_HANDOVER_MS,
          slowEndpointMs: config.CALLBACK_SLOW_ENDPOINT_MS,
          queued: () => dispatcher.kick(),
          clock,
        });
        // Batches under way finish (or hand over to the queue) after the consumer stopped, before the dispatcher.
        host.onStop(() => batches.drain(config.CALLBACK_TIMEOUT_MS + 1000));
        const { topics, consumerOptions } = await host.connectMessaging();
        const consumer = new AtLeastOnceConsumer<CustomerEvent>({
          ...consumerOptions(config.CONSUMER_GROUP),
          topics: [topics.customerEvents],
          // A chunk of consumed events is delivered and written as a whole before its offsets are committed.
          handleBatch: async (messages) => {
            const now = clock();
            const deliveries = [];
            const offsets: number[] = [];
            for (const m of messages) {
              // docs/privacy.md: from the erasure on, nothing of that key generation is decrypted for a
              // callback (queued retries included), even with the key still cached here. The key
              // generation is deleted from the store here too, as the projector does (idempotent,
              // whichever comes first): this process, restarted after committing the erasure's offset,
              // must not find it there before the projector got to the event.
              if (m.value.type === 'PersonalDataErased') {
                await privacy.applyErasure(m.value.streamId, m.value.data.keyId);
              }
              for (const d of deliveriesOf([m.value], routing, now, keyed)) {
                deliveries.push(d);
                offsets.push(Number(m.offset));
              }
            }
            const last = messages[messages.length - 1]!;
            await batches.deliver(deliveries, {
              partitionKey: `${last.topic}|${last.partition}`,
              offsets,
              lastOffset: Number(last.offset),
            });
          },
          maxBatch: config.CALLBACK_BATCH_SIZE,
          partitionsConsumedConcurrently: config.CALLBACK_PARTITIONS_CONCURRENTLY,
          // Another instance may have owned a partition meanwhile: its progress is read again (decision 0037).
          onGroupJoin: () => batches.forgetProgress(),
        });
        await host.startPart(consumer, 'events');
      }),
    stop: () => host.stop(),
  };
}
