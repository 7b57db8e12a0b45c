import type { Db } from 'mongodb';
import type { Logger } from '@crs/runtime';
import type { CustomerEvent } from '@crs/contracts';
import { StreamReader, type Messaging } from '@crs/messaging';
import {
  CustomerProjectionNames,
  ProjectionCatalog,
  detectDialect,
  ensureProjectionIndexes,
  groupCommunicationEvents,
  type ProjectedCommunicationEvent,
} from '@crs/store';
import type { CollectionNames } from './projections/customer-projection';
import {
  MAX_BULK_OPERATIONS,
  applyCustomerEvent,
  applyCustomerEvents,
} from './projections/apply-customer-events';
import { InMemoryProjection } from './projections/in-memory-projection';
import { BulkInserter } from './projections/bulk-inserter';
import { eraseDataKey } from '@crs/privacy';

/**
 * Communication events the replay folds together (decision 0050): the events of a single import span
 * about a second of the log (its screening and assessment come later), a batch's thousands sit together.
 */
const COMMUNICATION_WINDOW = 5000;

export interface ReplayResult {
  events: number;
  /** Erasures in the log whose data key was still (or again) in the key store, and is deleted now. */
  erasuresReapplied: number;
  seconds: number;
  collections: CollectionNames;
}

/**
 * Rebuilds the projector's read models (customers, assessments, screenings, communication_events) from
 * the customer event log into fresh collections, then swaps them in. `operations` and `alerts` are
 * left alone: the archive service fills them from its own log, so the catalogue keeps them as they are.
 * After the swap it reads to the end once more, so events the live projector wrote into the old
 * collections in the meantime reach the new ones too (applying is idempotent).
 *
 * Phase 1 folds the customers in memory while the history documents stream to the store as they are
 * read (unordered inserts of 500, several in flight; communication events folded per communication over
 * windows of the log); the customers follow as inserts once the log is read. The secondary indexes are
 * built after the load, before the switch (decision 0012).
 */
export async function replayProjections(opts: {
  db: Db;
  messaging: Messaging;
  logger: Logger;
  suffix: string;
  activate?: boolean;
  onProgress?: (read: bigint, total: bigint) => void;
  /**
   * The key store's database: every PersonalDataErased of the log is applied to it again (docs/privacy.md),
   * so a replay after restoring a backup of `data_keys` erases once more what the log says was erased.
   * Conditional on the key generation, so a later relationship's key is never touched.
   */
  keysDb?: Db;
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
  const dialect = await detectDialect(db);
  const started = Date.now();
  const memory = new InMemoryProjection({ keepHistory: false });
  const inserter = new BulkInserter(db, { batch: MAX_BULK_OPERATIONS, maxInFlight: 3 });
  let mode: 'memory' | 'buffer' | 'live' = 'memory';
  const pending: CustomerEvent[] = [];
  // Communication events are folded per communication over a window of the log (decision 0050).
  let communications: ProjectedCommunicationEvent[] = [];
  const writeCommunications = async () => {
    const window = communications;
    communications = [];
    for (const doc of groupCommunicationEvents(window)) await inserter.add(names.communication_events, doc);
  };
  let events = 0;
  let erasuresReapplied = 0;
  const reader = new StreamReader<CustomerEvent>({
    kafka: opts.messaging.kafka,
    serde: opts.messaging.serde,
    logger,
    topic: opts.messaging.topics.customerEvents,
    groupPrefix: `${opts.messaging.prefix}projector-replay`,
    onMessage: async (m) => {
      events++;
      if (opts.keysDb && m.value.type === 'PersonalDataErased') {
        if (await eraseDataKey(opts.keysDb, m.value.streamId, m.value.data.keyId)) erasuresReapplied++;
      }
      // During the customers' bulk write later events wait; after it they go through the live executor.
      if (mode === 'live') await applyCustomerEvent(db, names, m.value, dialect);
      else if (mode === 'buffer') pending.push(m.value);
      else
        for (const h of memory.apply(m.value)) {
          if (h.projection !== 'communication_events') await inserter.add(names[h.projection], h.doc);
          else if (communications.push(h.doc) >= COMMUNICATION_WINDOW) await writeCommunications();
        }
    },
  });
  await reader.start();
  try {
    await reader.waitUntilCaughtUp(undefined, opts.onProgress);
    mode = 'buffer';
    await writeCommunications();
    for (const doc of memory.customerDocuments()) await inserter.add(names.customers, doc);
    await inserter.flush();
    logger.info(
      { events, documents: inserter.written, seconds: (Date.now() - started) / 1000 },
      'replay: log folded and written',
    );
    while (pending.length > 0)
      await applyCustomerEvents(db, names, pending.splice(0, MAX_BULK_OPERATIONS), dialect);
    mode = 'live';
    // Phase 2: events that arrived meanwhile, the indexes, then the swap, then what the old projector
    // wrote meanwhile. The indexes exist before any reader is pointed at the new collections.
    await reader.waitUntilCaughtUp(undefined, opts.onProgress);
    await ensureProjectionIndexes(db, names);
    if (opts.activate !== false) {
      const catalog = new ProjectionCatalog(db);
      for (const n of CustomerProjectionNames) await catalog.activate(n, names[n]);
      await new Promise((r) => setTimeout(r, 1500));
      await reader.waitUntilCaughtUp(undefined, opts.onProgress);
    }
  } finally {
    await reader.stop();
  }
  if (erasuresReapplied > 0)
    logger.warn({ erasuresReapplied }, 'replay: erased data keys found in the key store were deleted again');
  return { events, erasuresReapplied, seconds: (Date.now() - started) / 1000, collections: names };
}
