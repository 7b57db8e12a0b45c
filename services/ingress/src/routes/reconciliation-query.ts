import type { Collection, Filter } from 'mongodb';
import type { OperationDoc } from '@crs/store';

/** A window spanning at most this many UTC days is read day by day, then month by month up to MAX_MONTHS. */
const MAX_DAYS = 62;
const MAX_MONTHS = 120;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * The prefixes of `registeredAt` (ISO 8601 in UTC, as `toISOString` writes it) that cover the window
 * `[fromIso, tillIso]`: its UTC days when it spans at most MAX_DAYS of them, else its months when at most
 * MAX_MONTHS, else its years; ascending, so that rows read prefix by prefix come in `registeredAt` order.
 * Undefined for a window outside the years 0100-9999 (read in one query: `Date.UTC` takes years 0-99 for
 * 1900-1999).
 */
export function registrationPrefixes(fromIso: string, tillIso: string): string[] | undefined {
  const from = new Date(fromIso);
  const till = new Date(tillIso);
  const [y0, y1] = [from.getUTCFullYear(), till.getUTCFullYear()];
  if (Number.isNaN(from.getTime()) || Number.isNaN(till.getTime()) || from > till) return undefined;
  if (y0 < 100 || y1 > 9999) return undefined;
  const year = (y: number) => pad(y, 4);
  const months = (y1 - y0) * 12 + till.getUTCMonth() - from.getUTCMonth() + 1;
  const firstDay = Date.UTC(y0, from.getUTCMonth(), from.getUTCDate());
  const days = Math.floor((Date.UTC(y1, till.getUTCMonth(), till.getUTCDate()) - firstDay) / 86_400_000) + 1;
  if (days <= MAX_DAYS)
    return Array.from({ length: days }, (_, i) =>
      new Date(firstDay + i * 86_400_000).toISOString().slice(0, 10),
    );
  if (months <= MAX_MONTHS)
    return Array.from({ length: months }, (_, i) => {
      const m = from.getUTCMonth() + i;
      return `${year(y0 + Math.floor(m / 12))}-${pad((m % 12) + 1)}`;
    });
  return Array.from({ length: y1 - y0 + 1 }, (_, i) => year(y0 + i));
}

/** What the reconciliation reads of an operation (the archive service's read model). */
export type RegisteredOperation = Pick<OperationDoc, '_id' | 'extId' | 'businessUnit' | 'registeredAt'>;
export type ReconciliationRow = Pick<OperationDoc, '_id' | 'extId' | 'businessUnit'>;

/**
 * The operations registered in `[fromIso, tillIso]` that match `scope` (business units), in
 * `registeredAt` then `_id` order, at most `max`. Read prefix by prefix of `registeredAt`
 * (`registrationPrefixes`): `{registeredAt: {$regex: '^<prefix>', $gte, $lte}}` is served by the
 * `registeredAt` index on MongoDB and, with our patch 0008, on FerretDB v1 too, which otherwise reads
 * the whole collection for a range on a field other than `_id` (docs/decisions/0069). `registeredAt`
 * comes first in the filter: FerretDB pushes down the first key that leads an index, and the business
 * units lead one too (`{businessUnit, extId}`), which would read every operation of those units.
 */
export async function reconciliationRows<T extends RegisteredOperation>(
  operations: Collection<T>,
  scope: Filter<T>,
  fromIso: string,
  tillIso: string,
  max: number,
): Promise<ReconciliationRow[]> {
  const prefixes = registrationPrefixes(fromIso, tillIso) ?? [undefined];
  const rows: ReconciliationRow[] = [];
  for (const prefix of prefixes) {
    if (rows.length >= max) break;
    const registeredAt = {
      ...(prefix === undefined ? {} : { $regex: `^${prefix}` }),
      $gte: fromIso,
      $lte: tillIso,
    };
    const found = await operations
      .find({ registeredAt, ...scope } as Filter<T>, { projection: { extId: 1, businessUnit: 1 } })
      .sort({ registeredAt: 1, _id: 1 })
      .limit(max - rows.length)
      .toArray();
    rows.push(...(found as unknown as ReconciliationRow[]));
  }
  return rows;
}
