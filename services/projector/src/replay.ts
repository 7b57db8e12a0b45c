import type { Db } from 'mongodb';
import type { Logger } from '@crs/runtime';
import type { CustomerEvent } from '@crs/contracts';
import { StreamReader, type Messaging } from '@crs/messaging';
import { ProjectionCatalog, ProjectionNames, ensureProjectionIndexes, type ProjectionName } from '@crs/store';
import { applyCustomerEvent, type CollectionNames } from './projections/customer-projection';

export interface ReplayResult {
  events: number;
  seconds: number;
  collections: CollectionNames;
}

/**
 * Rebuilds every read model from the customer event log into fresh collections, then swaps them in.
 * After the swap it reads to the end once more, so events the live projector wrote into the old
 * collections in the meantime reach the new ones too (applying is idempotent).
 */
export async function replayProjections(opts: {
  db: Db;
  messaging: Messaging;
  logger: Logger;
  suffix: string;
  activate?: boolean;
  onProgress?: (read: bigint, total: bigint) => void;
}): Promise<ReplayResult> {
  const { db, logger } = opts;
  const names = Object.fromEntries(ProjectionNames.map((n) => [n, `${n}_${opts.suffix}`])) as Record<ProjectionName, string>;
  for (const n of Object.values(names)) await db.collection(n).drop().catch(() => undefined);
  await ensureProjectionIndexes(db, names);
  let events = 0;
  const started = Date.now();
  const reader = new StreamReader<CustomerEvent>({
    kafka: opts.messaging.kafka,
    serde: opts.messaging.serde,
    logger,
    topic: opts.messaging.topics.customerEvents,
    groupPrefix: `${opts.messaging.prefix}projector-replay`,
    onMessage: async (m) => {
      await applyCustomerEvent(db, names, m.value);
      events++;
    },
  });
  await reader.start();
  try {
    await reader.waitUntilCaughtUp(undefined, opts.onProgress);
    if (opts.activate !== false) {
      const catalog = new ProjectionCatalog(db);
      for (const n of ProjectionNames) await catalog.activate(n, names[n]);
      await new Promise((r) => setTimeout(r, 1500));
      await reader.waitUntilCaughtUp(undefined, opts.onProgress);
    }
  } finally {
    await reader.stop();
  }
  return { events, seconds: (Date.now() - started) / 1000, collections: names };
}
