/** What a retention run counted: customers scanned, and how each was judged. */
export interface Counts {
  scanned: number;
  erased: number;
  held: number;
  skipped: number;
}

export type RetentionRunStatus =
  /** The run reached the end of the customers; the next start begins a new run. */
  | 'FINISHED'
  /** It asked for maxCustomers erasures; the next start resumes after its cursor. */
  | 'LIMIT_REACHED'
  /** Stopped (shutdown) or its lease was lost; the next start resumes after its cursor. */
  | 'INTERRUPTED'
  /** Another instance runs it. */
  | 'LEASE_HELD'
  /** The last run started less than one period ago. */
  | 'NOT_DUE';

export interface RetentionRunReport extends Counts {
  status: RetentionRunStatus;
  dryRun: boolean;
  runId: string | null;
  /** The cursor after this start. */
  after: string | null;
  /** The run's counters so far, this start included (a dry run: this start's). */
  run: Counts;
  /** Erasures asked for (or that a dry run would ask for) by business unit. */
  erasedByBusinessUnit: Record<string, number>;
}

export const noCounts = (): Counts => ({ scanned: 0, erased: 0, held: 0, skipped: 0 });
export const addCounts = (a: Counts, b: Counts): Counts => ({
  scanned: a.scanned + b.scanned,
  erased: a.erased + b.erased,
  held: a.held + b.held,
  skipped: a.skipped + b.skipped,
});
