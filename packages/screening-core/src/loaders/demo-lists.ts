import path from 'node:path';
import type { ListInput, ListSnapshot } from '../model';
import { loadAdverseMedia } from './adverse-media';
import { loadOfacConsolidated, loadOfacSdn } from './ofac';
import { loadInternalList } from './records';
import { loadSenzingJsonLines } from './senzing';
import { loadUnConsolidated } from './un';

/** Repository root, from `packages/screening-core/{src,dist}/loaders`. */
export const REPO_ROOT = path.resolve(__dirname, '../../../..');

/** The shared data folder: `CRS_SHARED_DATA` if set, else `<repo>/../shared/data`. */
export function resolveSharedDataDir(env: Readonly<Record<string, string | undefined>>): string {
  return env.CRS_SHARED_DATA ? path.resolve(env.CRS_SHARED_DATA) : path.resolve(REPO_ROOT, '../shared/data');
}

export interface DemoListOptions {
  /** An INTERNAL_LIST file to load too (none ships with the shared data). */
  internalList?: ListInput;
}

/**
 * Every list the shared data folder holds (OFAC SDN, OFAC consolidated, UN, US Congress PEPs)
 * plus the bundled demo adverse-media set.
 */
export function loadAllDemoLists(
  dataDir: string,
  loadedAt: string,
  options: DemoListOptions = {},
): ListSnapshot[] {
  const lists = path.join(dataDir, 'lists');
  const snapshots = [
    loadOfacSdn({ primary: path.join(lists, 'sdn.csv'), alt: path.join(lists, 'alt.csv') }, loadedAt),
    loadOfacConsolidated(
      { primary: path.join(lists, 'cons_prim.csv'), alt: path.join(lists, 'cons_alt.csv') },
      loadedAt,
    ),
    loadUnConsolidated(path.join(lists, 'UN_consolidated.xml'), loadedAt),
    loadSenzingJsonLines(path.join(lists, 'us_congress_senzing.json'), loadedAt),
    loadAdverseMedia(loadedAt),
  ];
  if (options.internalList !== undefined) snapshots.push(loadInternalList(options.internalList, loadedAt));
  return snapshots;
}
