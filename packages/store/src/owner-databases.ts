import type { Document, MongoClient } from 'mongodb';
import type { Logger } from '@crs/runtime';
import { OwnedCollections } from './collections';
import { insertNew } from './insert-new';
import { ownerDbName, type MongoSettings, type StoreOwner } from './mongo';

export interface AdoptOptions {
  /** Documents per insertMany (default 1,000). */
  batchSize?: number;
  /** Told after each batch: collection, documents moved so far and how many the collection held. */
  onProgress?: (collection: string, moved: number, total: number) => void;
}

/** The collections each owner keeps in its own database ({@link ownerDbName}). */
export const OwnerCollections: Record<StoreOwner, readonly string[]> = {
  ingress: [OwnedCollections.reservations],
  callback: [OwnedCollections.deliveries, OwnedCollections.callbackQueue, OwnedCollections.callbackProgress],
  keys: ['data_keys', 'data_key_rotations'],
};

/**
 * Moves an owner's collections ({@link OwnerCollections}) from `MONGODB_DB`, where a release before owner databases kept them, into
 * the owner's own database (docs/decisions/0017), before the service serves anything. Without it an
 * upgrade would forget the communicationNumbers already used (a reused number accepted) and the callbacks
 * still pending (never delivered).
 *
 * Documents are copied with unordered `insertMany` (an `_id` already there is skipped),
 * and the old collection is dropped only once every document was copied: a run cut short is simply
 * repeated at the next start. Two replicas starting at once copy the same documents; the second copy of
 * each is a skipped duplicate. Returns the documents moved per collection.
 */
export async function adoptOwnedCollections(
  client: MongoClient,
  settings: MongoSettings,
  owner: StoreOwner,
  logger: Logger,
  options: AdoptOptions = {},
): Promise<Record<string, number>> {
  const target = ownerDbName(settings, owner);
  const moved: Record<string, number> = {};
  if (target === settings.MONGODB_DB) return moved;
  const from = client.db(settings.MONGODB_DB);
  const to = client.db(target);
  const batchSize = options.batchSize ?? 1000;
  const existing = new Set((await from.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  for (const name of OwnerCollections[owner]) {
    if (!existing.has(name)) continue;
    const source = from.collection<Document>(name);
    const total = await source.estimatedDocumentCount();
    logger.info(
      { collection: name, from: settings.MONGODB_DB, to: target, total },
      'moving an owned collection into its owner database',
    );
    let count = 0;
    let batch: Document[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await insertNew(to.collection<Document>(name), batch);
      count += batch.length;
      batch = [];
      options.onProgress?.(name, count, total);
      logger.info({ collection: name, moved: count, total }, 'owned collection move progress');
    };
    for await (const doc of source.find({})) {
      batch.push(doc);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    await source.drop();
    moved[name] = count;
    logger.info(
      { collection: name, moved: count, to: target },
      'owned collection moved; the old one dropped',
    );
  }
  return moved;
}
