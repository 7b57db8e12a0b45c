import type { CustomerEvent } from '@crs/contracts';
import type { ProjectionEffect } from './customer-projection';

/** A customer document as the executors write it: by path, from the effects' typed `$set` (CustomerSet). */
export type CustomerWrite = { _id: string; version?: number } & Record<string, unknown>;

/** `$set` semantics for the dotted paths the effects use (`screening.SANCTIONS`). */
export function setPath(doc: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = doc;
  for (const p of parts.slice(0, -1)) {
    if (typeof at[p] !== 'object' || at[p] === null) at[p] = {};
    at = at[p] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]!] = value;
}

/**
 * The object at `holder[key]`, made writable: an object `owned` holds (made or copied by this fold) as it
 * is; any other object (an effect's value, which the event and its history documents share) copied first,
 * one level (copy on write, decision 0075); a missing or non-object value replaced by `{}`. Owned from then on.
 */
function writableChild(
  holder: Record<string, unknown>,
  key: string,
  owned: WeakSet<object>,
): Record<string, unknown> {
  const earlier = holder[key];
  let next: object;
  if (typeof earlier !== 'object' || earlier === null) next = {};
  else if (owned.has(earlier)) next = earlier;
  else next = Array.isArray(earlier) ? [...(earlier as unknown[])] : { ...earlier };
  owned.add(next);
  holder[key] = next;
  return next as Record<string, unknown>;
}

/**
 * `setPath` that writes only into objects `owned` holds (`writableChild` on the way): the effects' values
 * are shared, never changed (the folds had deep-copied every value, the record included, to be safe from
 * that). `doc` itself must be in `owned`.
 */
export function setPathOwned(
  doc: Record<string, unknown>,
  path: string,
  value: unknown,
  owned: WeakSet<object>,
): void {
  const parts = path.split('.');
  let at = doc;
  for (const p of parts.slice(0, -1)) at = writableChild(at, p, owned);
  at[parts[parts.length - 1]!] = value;
}

/**
 * Adds one effect's `$set` to a `$set` accumulated from earlier effects, so that applying the result
 * once equals applying both in order. Paths one `$set` cannot hold together (`a` and `a.b`) are folded:
 * a later `a` replaces an earlier `a.b`; a later `a.b` is written into a copy of an earlier `a`. Neither
 * the effects nor their values are changed: `owned` holds what this fold made (one per accumulated `$set`;
 * a fresh one only means more copies).
 */
export function mergeSet(
  into: Record<string, unknown>,
  set: Record<string, unknown>,
  owned: WeakSet<object> = new WeakSet(),
): void {
  for (const [path, value] of Object.entries(set)) {
    if (path in into) {
      into[path] = value;
      continue;
    }
    const parent = Object.keys(into).find((p) => path.startsWith(`${p}.`));
    if (parent !== undefined) {
      setPathOwned(writableChild(into, parent, owned), path.slice(parent.length + 1), value, owned);
      continue;
    }
    for (const child of Object.keys(into)) if (child.startsWith(`${path}.`)) delete into[child];
    into[path] = value;
  }
}

/** A customer document write folded from several events. */
export interface FoldedCustomer {
  /** One `$set` holding every applied effect. */
  set: Record<string, unknown>;
  /** The stream version of the document after the write. */
  version: number;
  /** Set when the fold starts from no document (its first upserting event creates it). */
  createdAt?: string;
}

export type Applied = { event: CustomerEvent; effect: ProjectionEffect };

/**
 * The projection is a fold: the effects of a stream's events (in version order) that a document at
 * version `stored` (0: no document) has not seen, as one write. The rules of one event at a time hold:
 * an event applies only if newer than the document, and only an upserting event creates it.
 */
export function foldCustomer(applied: readonly Applied[], stored: number): FoldedCustomer | undefined {
  let exists = stored > 0;
  let version = stored;
  let createdAt: string | undefined;
  const set: Record<string, unknown> = {};
  const owned = new WeakSet<object>();
  for (const { event, effect } of applied) {
    if (exists ? event.streamVersion <= version : !effect.customer.upsert) continue;
    if (!exists) createdAt = event.occurredAt;
    exists = true;
    version = event.streamVersion;
    mergeSet(set, effect.customer.set, owned);
  }
  if (version === stored) return undefined;
  return { set, version, ...(createdAt !== undefined ? { createdAt } : {}) };
}

/** The document an upsert of the folded `$set` with `$setOnInsert: {createdAt}` creates. */
export function newCustomerDocument(streamId: string, folded: FoldedCustomer): CustomerWrite {
  const doc: CustomerWrite = { _id: streamId, createdAt: folded.createdAt };
  for (const [path, value] of Object.entries(folded.set)) setPath(doc, path, value);
  return doc;
}
