import { randomUUID } from 'node:crypto';
import type { Logger } from '@crs/runtime';
import type { OperationTopicEvent } from '@crs/contracts';
import { AtLeastOnceConsumer, DurablePublisher } from '@crs/messaging';
import { ProjectionCatalog, detectDialect, type AlertDoc, type OperationDoc } from '@crs/store';
import { ServiceHost } from '@crs/host';
import { resolveSharedDataDir } from '@crs/screening-core';
import { buildOperationDeciderShell } from './decider/operation-decider-shell';
import { applyOperationEvent, type OperationCollections } from './projections/operation-projection';
import { RetroMonitor, retroRunLog } from './retro/retro-monitor';
import { RetroScheduler } from './retro/retro-scheduler';
import { loadSanctionsFromDataDir } from './retro/sanctions-index';
import type { ArchiveConfig } from './config';

export interface ArchiveService {
  start(): Promise<void>;
  stop(): Promise<void>;
  healthPort(): number;
}

/** Indexes of the two read models this service owns (idempotent). */
export async function ensureOperationIndexes(catalog: ProjectionCatalog): Promise<void> {
  const operations = await catalog.collection<OperationDoc>('operations');
  await operations.createIndex({ businessUnit: 1, extId: 1 });
  await operations.createIndex({ registeredAt: 1 });
  await operations.createIndex({ date: 1 });
  await (await catalog.collection<AlertDoc>('alerts')).createIndex({ businessUnit: 1 });
}

/** The version a list-snapshot message announces, whatever its exact shape (top level or under data). */
function announcedVersion(value: unknown): string | undefined {
  const v = value as { version?: unknown; data?: { version?: unknown } } | null;
  const found = v?.version ?? v?.data?.version;
  return typeof found === 'string' || typeof found === 'number' ? String(found) : undefined;
}

/**
 * The operations service: the operation decider (upstream operations and archive commands -> operation
 * events, exactly once), the operations/alerts projection (at least once, idempotent) and
 * retrospective monitoring of counterparties whenever a new list snapshot is announced.
 */
export function buildArchiveService(
  config: ArchiveConfig,
  logger: Logger,
  clock: () => Date = () => new Date(),
): ArchiveService {
  const host = new ServiceHost({ name: 'archive', config, logger });

  return {
    healthPort: () => host.healthPort(),
    start: () =>
      host.start(async () => {
        await host.serveHealth();
        const { db } = await host.connectStore();
        const catalog = new ProjectionCatalog(db);
        await ensureOperationIndexes(catalog);
        const names = async (): Promise<OperationCollections> => ({
          operations: await catalog.activeName('operations'),
          alerts: await catalog.activeName('alerts'),
        });
        const { kafka, serde, topics, prefix, clients, consumerOptions } = await host.connectMessaging();

        const decider = buildOperationDeciderShell({
          ...clients,
          topics,
          prefix,
          consumerGroup: config.CONSUMER_GROUP,
          transactionalIdPrefix: config.TRANSACTIONAL_ID_PREFIX,
          clock,
        });
        await host.startPart(decider, 'decider');

        const projection = new AtLeastOnceConsumer<OperationTopicEvent>({
          ...consumerOptions(config.PROJECTION_GROUP),
          topics: [topics.operationEvents],
          handle: async (m) => applyOperationEvent(db, await names(), m.value),
          partitionsConsumedConcurrently: 3,
        });
        await host.startPart(projection, 'projection');

        if (config.RETRO_ON_LIST_SNAPSHOT) {
          const publisher = new DurablePublisher(kafka, serde);
          host.onStop(() => publisher.disconnect().catch(() => undefined));
          const monitor = new RetroMonitor({
            operations: () => catalog.collection<OperationDoc>('operations'),
            alerts: () => catalog.collection<AlertDoc>('alerts'),
            publisher,
            eventsTopic: topics.operationEvents,
            logger,
            lookbackDays: config.RETRO_LOOKBACK_DAYS,
            chunkSize: config.RETRO_CHUNK_SIZE,
            threshold: config.RETRO_THRESHOLD,
            clock,
            runLog: await retroRunLog(db),
            dialect: await detectDialect(db),
          });
          const dataDir = resolveSharedDataDir({ CRS_SHARED_DATA: config.CRS_SHARED_DATA || undefined });
          const scheduler = new RetroScheduler(async (trigger) => {
            // A new snapshot means new list content: the index is rebuilt for every run.
            const sanctions = loadSanctionsFromDataDir(dataDir, clock().toISOString());
            return monitor.run(sanctions, `retro:${trigger}:${randomUUID()}`);
          }, logger);
          host.onStop(() => scheduler.stop());
          const listsConsumer = new AtLeastOnceConsumer<unknown>({
            ...consumerOptions(config.RETRO_GROUP),
            topics: [topics.screeningLists],
            handle: async (m) => {
              const list = (m.value as { data?: { list?: unknown } } | null)?.data?.list;
              // Only sanctions take part in retro monitoring; other lists' snapshots change nothing here.
              if (typeof list === 'string' && list !== 'SANCTIONS') return;
              const version = announcedVersion(m.value) ?? `${m.partition}:${m.offset}`;
              logger.info({ type: m.type, version }, 'list snapshot announced; retro monitoring requested');
              scheduler.request(version);
            },
          });
          await host.startPart(listsConsumer);
        }
      }),
    stop: () => host.stop(),
  };
}
