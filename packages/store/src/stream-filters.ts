import { streamKey } from '@crs/contracts';

/**
 * The filter of one customer's document by business unit and external id. Its `_id` is the stream key
 * every projection writes, so the `_id` index serves it on MongoDB and on FerretDB, where any other
 * filter reads the collection up to the first match (10.8 s for a customer late in 104,050: decision
 * 0063); the fields keep the match exact.
 */
export function customerFilter(businessUnit: string, customerExtId: string) {
  return { _id: streamKey(businessUnit, customerExtId), businessUnit, customerExtId };
}

/** The filter of one operation's document by business unit and external id (as `customerFilter`). */
export function operationFilter(businessUnit: string, extId: string) {
  return { _id: streamKey(businessUnit, extId), businessUnit, extId };
}
