import type { Hit } from '@crs/screening-core/matcher';
import { INTERNAL_CUSTOMERS_SOURCE } from './customer-directory';

/** Another business unit's internal list is not ours, and a BLACK customer does not match itself. */
export const admitFor =
  (businessUnits: '*' | readonly string[], self?: string) =>
  (hit: Pick<Hit, 'source' | 'entryId'>): boolean => {
    if (hit.source !== INTERNAL_CUSTOMERS_SOURCE) return true;
    if (hit.entryId === self) return false;
    const bu = hit.entryId.slice(0, hit.entryId.indexOf(':'));
    return businessUnits === '*' || businessUnits.includes(bu);
  };
