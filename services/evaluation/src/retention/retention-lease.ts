import type { Db } from 'mongodb';
import { Lease } from '@crs/store';

/** `_id` of the lease document among the run documents. */
const CURRENT = 'current';

/** The job's own fields of the `current` document: which run is under way, when a run last started. */
interface CurrentFields {
  runId: string | null;
  lastStartedAt: Date;
}

export type RetentionClaim = 'CLAIMED' | 'LEASE_HELD' | 'NOT_DUE';

export interface RetentionLeaseOptions {
  db: Db;
  /** The collection of the run documents, which holds the `current` document too. */
  collection: string;
  owner: string;
  /** How often a scheduled run starts. */
  periodMs: number;
  leaseMs: number;
  clock: () => Date;
}

/**
 * The retention job's lease and schedule, in the `current` document next to the run documents: one
 * instance at a time runs the job (a store lease), and a scheduled start claims it only once a period
 * has passed since the last start.
 */
export class RetentionLease {
  private readonly lease: Lease<CurrentFields>;

  constructor(private readonly opts: RetentionLeaseOptions) {
    this.lease = new Lease<CurrentFields>({
      db: opts.db,
      collection: opts.collection,
      id: CURRENT,
      owner: opts.owner,
      leaseMs: opts.leaseMs,
      clock: opts.clock,
    });
  }

  /** The run under way (or the last one), whoever holds the lease; null before the first. */
  async currentRunId(): Promise<string | null> {
    return (await this.lease.read())?.runId ?? null;
  }

  /** Takes the lease when nobody holds it (or it expired) and, unless forced, a period has passed. */
  async claim(force: boolean): Promise<RetentionClaim> {
    const now = this.opts.clock();
    // The first scheduled run comes one period after the job first ran in this store: time for a dry run.
    if (!(await this.lease.read())) await this.lease.create({ runId: null, lastStartedAt: now });
    const due = force ? {} : { lastStartedAt: { $lte: new Date(now.getTime() - this.opts.periodMs) } };
    if (await this.lease.acquire({ at: now, where: due, set: { lastStartedAt: now } })) return 'CLAIMED';
    return (await this.lease.heldByAnother(now)) ? 'LEASE_HELD' : 'NOT_DUE';
  }

  /** Records the run this holder begins as the current one. */
  async begin(runId: string): Promise<void> {
    await this.lease.write({ runId });
  }

  /** False when the lease was lost: the run must stop. */
  renew(): Promise<boolean> {
    return this.lease.renew();
  }

  /** Frees the lease; `dueAgain` (the run stopped or failed) makes the next check start it at once. */
  async release(dueAgain: boolean): Promise<void> {
    await this.lease.release(dueAgain ? { lastStartedAt: new Date(0) } : {});
  }
}
