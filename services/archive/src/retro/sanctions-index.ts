import path from 'node:path';
import {
  buildIndex,
  loadOfacConsolidated,
  loadOfacSdn,
  loadUnConsolidated,
  type ListSnapshot,
  type ScreeningIndex,
} from '@crs/screening-core';

/** The sanctions lists a retro-monitoring run screens against, indexed once per set of snapshots. */
export interface SanctionsIndex {
  index: ScreeningIndex;
  /** List source (OFAC_SDN, OFAC_CONS, UN) -> version (content hash) of its snapshot. */
  versions: ReadonlyMap<string, string>;
  entryCount: number;
}

export function indexSanctions(snapshots: readonly ListSnapshot[]): SanctionsIndex {
  const sanctions = snapshots.filter((s) => s.list === 'SANCTIONS');
  return {
    index: buildIndex(sanctions),
    versions: new Map(sanctions.map((s) => [s.source, s.version])),
    entryCount: sanctions.reduce((n, s) => n + s.entryCount, 0),
  };
}

/**
 * The sanctions lists of the shared data folder (OFAC SDN, OFAC consolidated, UN). Only the SANCTIONS
 * family takes part in retrospective monitoring of counterparties, so PEP and adverse-media files are
 * not even read.
 */
export function loadSanctionsFromDataDir(dataDir: string, loadedAt: string): SanctionsIndex {
  const lists = path.join(dataDir, 'lists');
  return indexSanctions([
    loadOfacSdn({ primary: path.join(lists, 'sdn.csv'), alt: path.join(lists, 'alt.csv') }, loadedAt),
    loadOfacConsolidated(
      { primary: path.join(lists, 'cons_prim.csv'), alt: path.join(lists, 'cons_alt.csv') },
      loadedAt,
    ),
    loadUnConsolidated(path.join(lists, 'UN_consolidated.xml'), loadedAt),
  ]);
}
