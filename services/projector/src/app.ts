import { Counter, type Logger } from '@crs/runtime';
import type { CustomerEvent } from '@crs/contracts';
import { AtLeastOnceConsumer } from '@crs/messaging';
import { ProjectionCatalog, indexDropped, prepareProjections } from '@crs/store';
import { ServiceHost } from '@crs/host';
import { eraseDataKey } from '@crs/privacy';
import { MAX_CHUNK_EVENTS, applyCustomerEvents } from './projections/apply-customer-events';
import { StreamVersions } from './projections/stream-versions';
import type { ProjectorConfig } from './config';

export interface ProjectorService {
  start(): Promise<void>;
  stop(): Promise<void>;
  healthPort(): number;
}

/** Customer events -> MongoDB read models, at least once, idempotently. */
export function buildProjectorService(config: ProjectorConfig, logger: Logger): ProjectorService {
  const host = new ServiceHost({ name: 'projector', config, logger });
  const { metrics } = host;

  return {
    healthPort: () => host.healthPort(),
    start: () =>
      host.start(async () => {
        await host.serveHealth();
        const mongo = await host.connectStore();
        const db = mongo.db;
        const catalog = new ProjectionCatalog(db);
        const projections = await catalog.customerProjections();
        // A collection that starts empty holds communication_events keyed by communication (decision 0065),
        // and a keyed one no communication-number index (decision 0074).
        if (!(await prepareProjections(db, projections, { onDropped: indexDropped(logger) })))
          logger.warn(
            { collection: projections.communication_events },
            'communication_events holds documents from before decision 0065: the events pull endpoint reads it by communication number (a scan on FerretDB v1) until a replay (crs replay) rebuilds it keyed',
          );
        const { topics, consumerOptions } = await host.connectMessaging();
        // The versions of the customer documents of the partitions this instance owns (decision 0012).
        const versions = new StreamVersions();
        // Recorded erasures take effect here: the customer's data key is deleted (docs/privacy.md).
        const keysDb = mongo.ownDb('keys');
        const erasures = new Counter({
          name: 'personal_data_erasures_applied_total',
          help: 'PersonalDataErased events applied to the key store (a key deleted, or already gone)',
          labelNames: ['outcome'],
          registers: [metrics],
        });
        const consumer = new AtLeastOnceConsumer<CustomerEvent>({
          ...consumerOptions(config.CONSUMER_GROUP),
          topics: [topics.customerEvents],
          // A fetch in chunks of up to 5,000 events (MAX_CHUNK_EVENTS), each written in a few bulk writes (applyCustomerEvents);
          // per partition in order, every partition at the same time (their customers never overlap).
          handleBatch: async (messages) => {
            // Keys first, then the read models: a customer document that says erased never has a key
            // left in the store (readers trust the flag: docs/privacy.md). Deleting is idempotent, and
            // it only takes the erased key generation (`keyId`), not the key of a later re-import. The
            // callback service deletes the same generation when it meets the event, so 'already-gone'
            // is the usual outcome when it got there first.
            for (const { value: event } of messages) {
              if (event.type !== 'PersonalDataErased') continue;
              const deleted = await eraseDataKey(keysDb, event.streamId, event.data.keyId);
              erasures.labels(deleted ? 'deleted' : 'already-gone').inc();
              logger.info(
                { streamId: event.streamId, keyId: event.data.keyId ?? null, deleted },
                'personal data erased: data key deleted',
              );
            }
            await applyCustomerEvents(
              db,
              await catalog.customerProjections(),
              messages.map((m) => m.value),
              versions,
            );
          },
          maxBatch: MAX_CHUNK_EVENTS,
          partitionsConsumedConcurrently: config.TOPIC_PARTITIONS,
          // Another instance may have written the customers of a partition this one gets (back).
          onGroupJoin: () => versions.clear(),
          // At light load a fetch waits for more events (decision 0060): fewer fetches, store writes and
          // commits per customer; under load it fills at once.
          fetch: config.projectorFetch,
        });
        await host.startPart(consumer, 'events');
      }),
    stop: () => host.stop(),
  };
}
