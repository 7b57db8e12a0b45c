import type { Histogram } from '@crs/runtime';
import { screen, type Hit } from '@crs/screening-core';
import { admitFor } from '../domain/admit-hit';
import { thresholdsFor } from '../domain/thresholds';
import type { ScreeningIndexes } from '../lists/screening-indexes';
import type { ScreeningConfig } from '../config';
import type { SearchQuery } from './search-query';

export interface ScreeningSearchDeps {
  config: Pick<ScreeningConfig, 'SCREENING_THRESHOLD' | 'thresholdOverrides'>;
  indexes: ScreeningIndexes;
  duration: Histogram<'kind'>;
}

/** Ad-hoc search: ranked hits of both indexes; `businessUnits` limits the customer-derived internal list. */
export function screeningSearch(
  deps: ScreeningSearchDeps,
): (query: SearchQuery, businessUnits: '*' | readonly string[]) => Hit[] {
  const { config, indexes, duration } = deps;
  return (query, businessUnits) => {
    const started = process.hrtime.bigint();
    const threshold =
      query.threshold ??
      thresholdsFor(config.SCREENING_THRESHOLD, config.thresholdOverrides, query.businessUnit ?? '*');
    const admit = admitFor(businessUnits);
    const hits = indexes
      .all()
      .flatMap((index) => screen(index, query, { threshold, limit: query.limit }))
      .filter(admit)
      .sort(
        (a, b) => b.score - a.score || a.source.localeCompare(b.source) || a.entryId.localeCompare(b.entryId),
      )
      .slice(0, query.limit);
    duration.labels('search').observe(Number(process.hrtime.bigint() - started) / 1e9);
    return hits;
  };
}
