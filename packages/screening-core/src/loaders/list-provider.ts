import type { ListSnapshot, ListSource, ScreeningList } from '../model';

/**
 * Where one list comes from. The screening service asks every provider for a snapshot on start-up
 * and on refresh, then rebuilds the index; providers decide how to obtain the bytes (file, URL).
 */
export interface ListProvider {
  readonly list: ScreeningList;
  readonly source: ListSource;
  load(loadedAt: string): Promise<ListSnapshot>;
}

/** A provider around any loader of this package, e.g. `listProvider('PEP', 'US_CONGRESS_PEP', (t) => loadSenzingJsonLines(file, t))`. */
export function listProvider(
  list: ScreeningList,
  source: ListSource,
  load: (loadedAt: string) => ListSnapshot | Promise<ListSnapshot>,
): ListProvider {
  return {
    list,
    source,
    load: async (loadedAt) => load(loadedAt),
  };
}
