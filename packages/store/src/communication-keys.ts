import { createHash } from 'node:crypto';
import type { Collection, Document, Filter } from 'mongodb';
import type { Logger } from '@crs/runtime';
import { insertNew } from './insert-new';

/**
 * Collections keyed by communication: the `_id` of each document starts with its communication's key, so
 * that a communication's documents are read from the `_id` index instead of a scan on FerretDB v1, whose
 * SQLite backend uses no secondary index. `communication_events` (decision 0065, read by the events pull
 * endpoint) and the callback delivery log `callback_deliveries` (decision 0066, read by the delivery-log
 * API and `redeliver`).
 *
 * The key: `c~`, 22 characters of the SHA-256 of the communication number (base64url), `:`. A reader asks
 * for `{_id: {$regex: '^' + key}}`, which MongoDB serves from the `_id` index and FerretDB v1 too (our
 * patch 0007 pushes such a literal prefix down as a range), whatever business unit sent it.
 */
export function communicationKey(communicationNumber: string): string {
  return `c~${createHash('sha256').update(communicationNumber).digest('base64url').slice(0, 22)}:`;
}

/**
 * The `_id` of the document that says a collection holds keyed documents only (every document's `_id`
 * starts with its `communicationKey`). Collections written before their keys (decisions 0065, 0066) lack it
 * and are read by `communicationNumber`, as before (a replay rebuilds `communication_events` keyed).
 */
export const COMMUNICATION_KEYS_MARKER = 'c~~keyed';

const KEYS_MARKER = { _id: COMMUNICATION_KEYS_MARKER } as Document;

/** Whether a collection holds the marker (one read by `_id`). */
async function hasKeysMarker(collection: Collection<Document>): Promise<boolean> {
  return (await collection.findOne(KEYS_MARKER, { projection: { _id: 1 } })) !== null;
}

/**
 * Marks a collection as keyed when it holds no documents yet (its writer at start: the projector, the
 * callback service; a replay marks the collections it builds: `fresh`). Returns whether the collection is
 * keyed, which tells its writer which `_id`s to write. Idempotent; a collection that already holds unkeyed
 * documents stays unmarked.
 */
export async function markCommunicationKeys(
  collection: Collection<Document>,
  opts: { fresh?: boolean } = {},
): Promise<boolean> {
  if (await hasKeysMarker(collection)) return true;
  // Without a sort FerretDB stops at the first document: no scan.
  if (!opts.fresh && (await collection.findOne({}, { projection: { _id: 1 } }))) return false;
  // Another instance marking it at the same moment is as good (a duplicate key is not an error here).
  await insertNew(collection, [{ ...KEYS_MARKER, keyedSince: new Date() }]);
  return true;
}

/** The index that serves reads by communication number where `_id` cannot: collections written before their keys. */
export const COMMUNICATION_NUMBER_INDEX = { businessUnit: 1, communicationNumber: 1 } as const;

/**
 * The communication-number index of a collection keyed by communication, as it should be (decision 0074):
 * created where the collection is not keyed (its reads by communication number need it on MongoDB);
 * dropped, if an earlier release created it, where the collection is keyed: there every read by
 * communication goes by the `_id` prefix, and the index only cost each insert an entry (on FerretDB v1 9-11 %
 * of its CPU per insert with communication numbers in order, 17-20 % and ~10 KB more written with random ones:
 * `npm run bench index-cost`). Call it after `markCommunicationKeys` (`prepareProjections`,
 * `DeliveryStore.prepare`).
 * Returns whether the collection is keyed.
 */
export async function indexCommunicationNumbers(
  collection: Collection<Document>,
  opts: IndexUpkeep = {},
): Promise<boolean> {
  if (!(await hasKeysMarker(collection))) {
    await collection.createIndex(COMMUNICATION_NUMBER_INDEX);
    return false;
  }
  for (const index of await collection.indexes())
    if (sameKeys(index.key, COMMUNICATION_NUMBER_INDEX) && index.name)
      if (await dropIndexIfThere(collection, index.name))
        opts.onDropped?.(collection.collectionName, index.name);
  return true;
}

/** What a start does to indexes, told to the service (its log: an SRE sees which index went, and where). */
export interface IndexUpkeep {
  /** An index this call dropped (not one another instance dropped at the same moment). */
  onDropped?: (collection: string, index: string) => void;
}

/** The services' `onDropped`: one line in their log per index they dropped at start, for the operators. */
export function indexDropped(logger: Pick<Logger, 'info'>): (collection: string, index: string) => void {
  return (collection, index) =>
    logger.info(
      { collection, index },
      'dropped the communication-number index of a collection keyed by communication: no read uses it (decision 0074)',
    );
}

function sameKeys(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.entries(a);
  const kb = Object.entries(b);
  return (
    ka.length === kb.length && ka.every(([k, v], i) => kb[i]![0] === k && Number(kb[i]![1]) === Number(v))
  );
}

/**
 * Drops an index by name; another instance dropping it at the same moment is as good. Returns whether this
 * call dropped it.
 */
export async function dropIndexIfThere<T extends Document>(
  collection: Collection<T>,
  name: string,
): Promise<boolean> {
  if (!(await collection.indexes()).some((index) => index.name === name)) return false;
  try {
    await collection.dropIndex(name);
    return true;
  } catch (err) {
    if ((await collection.indexes()).some((index) => index.name === name)) throw err;
    return false;
  }
}

const KEYED_UNKNOWN_MS = 30_000;

/**
 * The filter of a communication's documents in a collection keyed by communication: by its key where the
 * collection is keyed, else by `communicationNumber` (MongoDB's index; FerretDB v1 scans). Whether a
 * collection is keyed is read once per collection (a replay switches to a new name); an unkeyed one is
 * asked again after 30 s.
 */
export class CommunicationKeyLookup {
  private readonly known = new Map<string, { keyed: boolean; at: number }>();

  async filter<T extends Document>(
    collection: Collection<T>,
    communicationNumber: string,
  ): Promise<Filter<T>> {
    const hit = this.known.get(collection.namespace);
    let keyed = hit?.keyed;
    if (keyed === undefined || (!keyed && Date.now() - hit!.at > KEYED_UNKNOWN_MS)) {
      keyed = await hasKeysMarker(collection as unknown as Collection<Document>);
      this.known.set(collection.namespace, { keyed, at: Date.now() });
    }
    const filter = keyed
      ? { _id: { $regex: `^${communicationKey(communicationNumber)}` }, communicationNumber }
      : { communicationNumber };
    return filter as unknown as Filter<T>;
  }
}
