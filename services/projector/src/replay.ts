import type { Db } from 'mongodb';
import type { Logger } from '@crs/runtime';
import type { CustomerEvent } from '@crs/contracts';
import { StreamReader, type Messaging } from '@crs/messaging';
import {
  CustomerProjectionNames,
  ProjectionCatalog,
  detectDialect,
  ensureProjectionIndexes,
} from '@crs/store';
import {
  InMemoryProjection,
  applyCustomerEvent,
  type CollectionNames,
} from './projections/customer-projection';

export interface ReplayResult {
  events: number;
  seconds: number;
  collections: CollectionNames;
}

/**
 * Rebuilds the projector's read models (customers, assessments, screenings, communication_events) from
 * the customer event log into fresh collections, then swaps them in. `operations` and `alerts` are
 * left alone: the archive service fills them from its own log, so the catalogue keeps them as they are.
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
  const names = Object.fromEntries(
    CustomerProjectionNames.map((n) => [n, `${n}_${opts.suffix}`]),
  ) as CollectionNames;
  for (const n of Object.values(names))
    await db
      .collection(n)
      .drop()
      .catch(() => undefined);
  await ensureProjectionIndexes(db, names);
  const dialect = await detectDialect(db);
  const started = Date.now();
  // Phase 1: fold the log in memory up to its current end, then write every collection in bulk.
  const memory = new InMemoryProjection();
  let mode: 'memory' | 'buffer' | 'live' = 'memory';
  const pending: CustomerEvent[] = [];
  let events = 0;
  const reader = new StreamReader<CustomerEvent>({
    kafka: opts.messaging.kafka,
    serde: opts.messaging.serde,
    logger,
    topic: opts.messaging.topics.customerEvents,
    groupPrefix: `${opts.messaging.prefix}projector-replay`,
    onMessage: async (m) => {
      events++;
      // During the bulk write later events wait; after it they go through the live (idempotent) executor.
      if (mode === 'live') await applyCustomerEvent(db, names, m.value, dialect);
      else if (mode === 'buffer') pending.push(m.value);
      else memory.apply(m.value);
    },
  });
  await reader.start();
  try {
    await reader.waitUntilCaughtUp(undefined, opts.onProgress);
    mode = 'buffer';
    await memory.writeTo(db, names);
    while (pending.length > 0) await applyCustomerEvent(db, names, pending.shift()!, dialect);
    mode = 'live';
    // Phase 2: events that arrived meanwhile, then swap, then what the old projector wrote meanwhile.
    await reader.waitUntilCaughtUp(undefined, opts.onProgress);
    if (opts.activate !== false) {
      const catalog = new ProjectionCatalog(db);
      for (const n of CustomerProjectionNames) await catalog.activate(n, names[n]);
      await new Promise((r) => setTimeout(r, 1500));
      await reader.waitUntilCaughtUp(undefined, opts.onProgress);
    }
  } finally {
    await reader.stop();
  }
  return { events, seconds: (Date.now() - started) / 1000, collections: names };
}
