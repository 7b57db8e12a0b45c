import type { Db } from 'mongodb';
import { CodedError, type Logger } from '@crs/runtime';
import type { CustomerEvent } from '@crs/contracts';
import { StreamReader, type Messaging } from '@crs/messaging';
import {
  CATALOG_CACHE_MS,
  CustomerProjectionNames,
  ProjectionCatalog,
  ensureProjectionIndexes,
  markCommunicationKeys,
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

/** Where a replay stands: reading the log (offsets), then writing the folded customers (documents). */
export interface ReplayProgress {
  phase: 'log' | 'customers';
  done: number;
  total: number;
}

/** Seconds each phase of a replay took (docs/operations.md, "Replaying projections"). */
export interface ReplayPhases {
  /** Reading the log to its end, folding customers in memory, writing history documents as they come. */
  log: number;
  /** Writing the folded customer documents. */
  customers: number;
  /** Events that arrived meanwhile, applied to the new collections. */
  tail: number;
  /** Building the secondary indexes. */
  indexes: number;
  /** Switching the catalogue, waiting for cached names to expire, reading what arrived meanwhile. */
  activation: number;
}

export interface ReplayResult {
  events: number;
  /** Customer documents written (the folded customers). */
  customers: number;
  /** Erasures in the log whose data key was still (or again) in the key store, and is deleted now. */
  erasuresReapplied: number;
  seconds: number;
  phases: ReplayPhases;
  collections: CollectionNames;
}

/** A `customers` progress report every this many documents (and one at the end). */
const CUSTOMERS_PROGRESS_EVERY = 5000;

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
  onProgress?: (progress: ReplayProgress) => void;
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
  // The fresh collections are dropped first: never one that is active (a second replay in the same second).
  const catalog = new ProjectionCatalog(db);
  const active = Object.values(await catalog.customerProjections());
  const clash = Object.values(names).filter((n) => active.includes(n));
  if (clash.length > 0)
    throw new CodedError(
      'REPLAY_TARGET_ACTIVE',
      `replay: ${clash.join(', ')} is active; start the replay again (it takes a new suffix)`,
    );
  for (const n of Object.values(names))
    await db
      .collection(n)
      .drop()
      .catch(() => undefined);
  // Every document the replay writes is keyed by its communication (decision 0065).
  await markCommunicationKeys(db.collection(names.communication_events), { fresh: true });
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
      if (mode === 'live') await applyCustomerEvent(db, names, m.value);
      else if (mode === 'buffer') pending.push(m.value);
      else
        for (const h of memory.apply(m.value)) {
          if (h.projection !== 'communication_events') await inserter.add(names[h.projection], h.doc);
          else if (communications.push(h.doc) >= COMMUNICATION_WINDOW) await writeCommunications();
        }
    },
  });
  const phases: ReplayPhases = { log: 0, customers: 0, tail: 0, indexes: 0, activation: 0 };
  let phaseStarted = Date.now();
  const endPhase = (phase: keyof ReplayPhases) => {
    phases[phase] = (Date.now() - phaseStarted) / 1000;
    phaseStarted = Date.now();
  };
  const logProgress = (done: bigint, total: bigint) =>
    opts.onProgress?.({ phase: 'log', done: Number(done), total: Number(total) });
  await reader.start();
  try {
    await reader.waitUntilCaughtUp(undefined, logProgress);
    mode = 'buffer';
    await writeCommunications();
    // The history documents still in flight belong to the log phase.
    await inserter.flush();
    endPhase('log');
    const total = memory.customerCount();
    let written = 0;
    opts.onProgress?.({ phase: 'customers', done: 0, total });
    for (const doc of memory.customerDocuments()) {
      await inserter.add(names.customers, doc);
      if (++written % CUSTOMERS_PROGRESS_EVERY === 0)
        opts.onProgress?.({ phase: 'customers', done: written, total });
    }
    await inserter.flush();
    opts.onProgress?.({ phase: 'customers', done: written, total });
    endPhase('customers');
    logger.info(
      { events, documents: inserter.written, seconds: (Date.now() - started) / 1000, phases },
      'replay: log folded and written',
    );
    while (pending.length > 0) await applyCustomerEvents(db, names, pending.splice(0, MAX_BULK_OPERATIONS));
    mode = 'live';
    // Phase 2: events that arrived meanwhile, the indexes, then the swap, then what the old projector
    // wrote meanwhile. The indexes exist before any reader is pointed at the new collections.
    await reader.waitUntilCaughtUp(undefined, logProgress);
    endPhase('tail');
    await ensureProjectionIndexes(db, names);
    endPhase('indexes');
    if (opts.activate !== false) {
      for (const n of CustomerProjectionNames) await catalog.activate(n, names[n]);
      // Every service's cached names expire (a batch that read the old ones was fetched before that, so
      // its events are in the log this last read reaches).
      await new Promise((r) => setTimeout(r, CATALOG_CACHE_MS + 500));
      await reader.waitUntilCaughtUp(undefined, logProgress);
      endPhase('activation');
    }
  } finally {
    await reader.stop();
  }
  if (erasuresReapplied > 0)
    logger.warn({ erasuresReapplied }, 'replay: erased data keys found in the key store were deleted again');
  return {
    events,
    customers: memory.customerCount(),
    erasuresReapplied,
    seconds: (Date.now() - started) / 1000,
    phases,
    collections: names,
  };
}
