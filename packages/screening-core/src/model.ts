import { ScreeningLists, type ScreeningList } from '@crs/contracts/types';

/** The four list families a customer can be screened against (interface.md, initializeScreeningProcesses). */
export type { ScreeningList };

/** Generated from schemas/ (risk-matrix `$defs.screeningList`, generated/messages.ts). */
export const SCREENING_LISTS: readonly ScreeningList[] = ScreeningLists;

/** Publisher of a list snapshot. Free-form beyond the known ones so operators can add providers. */
export type ListSource =
  | 'OFAC_SDN'
  | 'OFAC_CONS'
  | 'UN'
  | 'US_CONGRESS_PEP'
  | 'ADVERSE_MEDIA_DEMO'
  | 'INTERNAL'
  | (string & {});

export type EntityType = 'INDIVIDUAL' | 'ORGANIZATION' | 'VESSEL' | 'AIRCRAFT';

export interface Identifier {
  /** Normalised type, e.g. PASSPORT, NATIONAL_ID, TAX_ID, REGISTRATION, IMO, LEI, UN_REFERENCE. */
  type: string;
  value: string;
}

/** One listed party in the publisher-independent shape the matcher works on. */
export interface ListEntry {
  list: ScreeningList;
  source: ListSource;
  /** Stable within the source (OFAC ent_num, UN DATAID, Senzing RECORD_ID, ...). */
  id: string;
  entityType: EntityType;
  /** Primary name first, then aliases, as published. */
  names: string[];
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  birthDates?: string[];
  /** ISO 3166-1 alpha-2 codes where the publisher's country could be resolved, else the published text. */
  countries?: string[];
  identifiers?: Identifier[];
  programs?: string[];
  remarks?: string;
}

export interface ListSnapshot {
  list: ScreeningList;
  source: ListSource;
  /** sha256 (hex) of the raw input files, in a fixed order: equal inputs give equal versions. */
  version: string;
  entryCount: number;
  /** ISO timestamp passed in by the caller (the library never reads the clock). */
  loadedAt: string;
  entries: ListEntry[];
}

/** Entry ids added, changed (different content hash) and removed between two snapshots of one source. */
export interface SnapshotDiff {
  added: string[];
  changed: string[];
  removed: string[];
}

/** A file path or the bytes themselves, so production can fetch lists from their URLs. */
export type ListInput = string | Buffer | Uint8Array;
