import type { Db, Collection, Document } from 'mongodb';
import { indexCommunicationNumbers, markCommunicationKeys, type IndexUpkeep } from './communication-keys';

/** Base names of the read models; the projector may switch a name to a rebuilt copy (see ProjectionCatalog). */
export const ProjectionNames = [
  'customers',
  'assessments',
  'screenings',
  'communication_events',
  'operations',
  'alerts',
] as const;
export type ProjectionName = (typeof ProjectionNames)[number];

/**
 * The read models the projector builds from the customer event log, and the only ones a replay
 * rebuilds and switches. `operations` and `alerts` belong to the archive service (its own log).
 */
export const CustomerProjectionNames = [
  'customers',
  'assessments',
  'screenings',
  'communication_events',
] as const satisfies readonly ProjectionName[];
export type CustomerProjectionName = (typeof CustomerProjectionNames)[number];

/** Collections owned by one service, not rebuilt from the log. */
export const OwnedCollections = {
  reservations: 'comm_reservations',
  classifiers: 'classifiers',
  deliveries: 'callback_deliveries',
  callbackQueue: 'callback_queue',
  callbackProgress: 'callback_progress',
  projectionCatalog: 'projection_catalog',
  decisions: 'screening_decisions',
} as const;

/**
 * How long a service keeps the catalogue's active names: a switch reaches every reader within this time
 * (a replay waits it out, with a margin, before its last read of the log).
 */
export const CATALOG_CACHE_MS = 1000;

/**
 * Read models are addressed through a catalogue document, so a replay can build fresh collections
 * beside the live ones and swap them in with one write (FerretDB v1 has no renameCollection with
 * dropTarget we could rely on, and no transactions).
 */
export class ProjectionCatalog {
  private cache = new Map<string, { name: string; at: number }>();
  /**
   * Reads in flight, one per name: the projector resolves its names for every batch of every partition
   * at once, and when the cached entry expires those batches would each read the catalogue (six
   * partitions, four names: two dozen finds a second under light load, measured). They share one read.
   */
  private reading = new Map<string, Promise<string>>();

  constructor(private readonly db: Db) {}

  async activeName(base: ProjectionName): Promise<string> {
    const hit = this.cache.get(base);
    if (hit && Date.now() - hit.at < CATALOG_CACHE_MS) return hit.name;
    let read = this.reading.get(base);
    if (!read) {
      const at = Date.now();
      read = this.db
        .collection<{ _id: string; active: string }>(OwnedCollections.projectionCatalog)
        .findOne({ _id: base })
        .then((doc) => {
          const name = doc?.active ?? base;
          // An activate() or invalidate() while the read was in flight dropped the entry: keep it dropped.
          if (this.reading.get(base) === read) this.cache.set(base, { name, at });
          return name;
        })
        .finally(() => {
          if (this.reading.get(base) === read) this.reading.delete(base);
        });
      this.reading.set(base, read);
    }
    return read;
  }

  /** The active collection of every read model the projector builds (`CustomerProjectionNames`). */
  async customerProjections(): Promise<Record<CustomerProjectionName, string>> {
    const entries = await Promise.all(
      CustomerProjectionNames.map(async (n) => [n, await this.activeName(n)] as const),
    );
    return Object.fromEntries(entries) as Record<CustomerProjectionName, string>;
  }

  async collection<T extends Document = Document>(base: ProjectionName): Promise<Collection<T>> {
    return this.db.collection<T>(await this.activeName(base));
  }

  async activate(base: ProjectionName, name: string): Promise<void> {
    await this.db
      .collection<{ _id: string; active: string; activatedAt: Date }>(OwnedCollections.projectionCatalog)
      .updateOne({ _id: base }, { $set: { active: name, activatedAt: new Date() } }, { upsert: true });
    this.cache.delete(base);
    this.reading.delete(base);
  }

  invalidate(): void {
    this.cache.clear();
    this.reading.clear();
  }
}

/**
 * What the projector does to its read models at start, in this order: `communication_events` marked keyed
 * by communication when it is empty (decision 0065), then the indexes, so an empty one is never indexed by
 * communication number (decision 0074). Returns whether `communication_events` is keyed.
 */
export async function prepareProjections(
  db: Db,
  names: Record<CustomerProjectionName, string>,
  upkeep: IndexUpkeep = {},
): Promise<boolean> {
  const keyed = await markCommunicationKeys(db.collection(names.communication_events));
  await ensureProjectionIndexes(db, names, upkeep);
  return keyed;
}

/**
 * Indexes of the projector's read models; created idempotently by the projector on start and by replay,
 * after `communication_events` is marked keyed or not (`markCommunicationKeys`): a keyed one has no
 * communication-number index (decision 0074). The archive service creates the indexes of `operations` and
 * `alerts` itself.
 */
export async function ensureProjectionIndexes(
  db: Db,
  names: Record<CustomerProjectionName, string>,
  upkeep: IndexUpkeep = {},
): Promise<void> {
  await db.collection(names.customers).createIndex({ businessUnit: 1, customerExtId: 1 });
  await db.collection(names.assessments).createIndex({ streamId: 1, streamVersion: 1 });
  await db.collection(names.screenings).createIndex({ streamId: 1, streamVersion: 1 });
  await indexCommunicationNumbers(db.collection(names.communication_events), upkeep);
}
