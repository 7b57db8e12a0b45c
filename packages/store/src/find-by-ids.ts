import type { Collection, Document, Filter, FindOptions, WithId } from 'mongodb';

/** At most this many `_id`s per `find({_id: {$in}})`. */
const IDS_PER_FIND = 500;

/**
 * The documents of many `_id`s (string ids) at once, by `_id`: one `find({_id: {$in}})` per 500 distinct
 * ids, instead of a find per document. On FerretDB v1 the `_id` index serves it only with our patch 0006
 * (decision 0032; `id-lookups.int.test.ts`); MongoDB serves it natively. Ids without a document are
 * absent from the map.
 */
export async function findByIds<T extends Document & { _id: string }>(
  collection: Collection<T>,
  ids: Iterable<string>,
  options?: FindOptions,
): Promise<Map<string, WithId<T>>> {
  const distinct = [...new Set(ids)];
  const found = new Map<string, WithId<T>>();
  for (let at = 0; at < distinct.length; at += IDS_PER_FIND) {
    const filter = { _id: { $in: distinct.slice(at, at + IDS_PER_FIND) } } as Filter<T>;
    for (const doc of await collection.find(filter, options).toArray()) found.set(doc._id as string, doc);
  }
  return found;
}
