import { randomBytes, randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { CustomerCommand } from '@crs/contracts';
import type { DurablePublisher, OutgoingMessage } from '@crs/messaging';
import type { RetentionPolicy } from '@crs/privacy';
import type { Logger } from '@crs/runtime';
import { detectDialect, pagesById, withLastPage, type ProjectionCatalog } from '@crs/store';
import {
  RETENTION_PROJECTION,
  erasureCandidate,
  retentionCommandId,
  type RetentionCustomerDoc,
} from './erasure-candidate';
import { RetentionLease } from './retention-lease';
import type { RetentionMetrics } from './retention-metrics';
import {
  addCounts,
  noCounts,
  type Counts,
  type RetentionRunReport,
  type RetentionRunStatus,
} from './retention-run-report';

/** Owned by the evaluation service: one progress document per retention run, and the `current` lease. */
export const RETENTION_RUNS = 'retention_runs';
/** How often the schedule asks whether a run is due (at most: a shorter period asks that often). */
const CHECK_MS = 60_000;

/** Sortable by start and unique across resets of `retention_runs` (command ids derive from it). */
function newRunId(at: Date): string {
  return `${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${randomBytes(4).toString('hex')}`;
}

/** Progress of one run (a pass over the read model by `_id`), kept so that a stopped run resumes after `after`. */
export interface RetentionRunDoc extends Counts {
  _id: string;
  /** `_id` (streamId) of the last customer handled; null before the first. */
  after: string | null;
  startedAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

/** The job's settings from the evaluation service's configuration (the service and the CLI alike). */
export function retentionSettingsOf(config: {
  retention: RetentionPolicy;
  PRIVACY_RETENTION_SCAN_MS: number;
  PRIVACY_RETENTION_MAX_PER_RUN: number;
  PRIVACY_RETENTION_CHUNK: number;
  REEVALUATION_CHUNK_PAUSE_MS: number;
  REEVALUATION_LEASE_MS: number;
}): Pick<RetentionJobOptions, 'policy' | 'periodMs' | 'maxCustomers' | 'chunkSize' | 'pauseMs' | 'leaseMs'> {
  return {
    policy: config.retention,
    periodMs: config.PRIVACY_RETENTION_SCAN_MS,
    maxCustomers: config.PRIVACY_RETENTION_MAX_PER_RUN,
    chunkSize: config.PRIVACY_RETENTION_CHUNK,
    pauseMs: config.REEVALUATION_CHUNK_PAUSE_MS,
    leaseMs: config.REEVALUATION_LEASE_MS,
  };
}

export interface RetentionJobOptions {
  db: Db;
  catalog: ProjectionCatalog;
  /** Not needed for dry runs. */
  publisher?: DurablePublisher;
  commandsTopic: string;
  logger: Logger;
  metrics: RetentionMetrics;
  policy: RetentionPolicy;
  /** How often a run starts; 0: never by itself (runOnce only). */
  periodMs: number;
  /** Erasures one run asks for at most. */
  maxCustomers: number;
  chunkSize: number;
  pauseMs: number;
  leaseMs: number;
  instanceId?: string;
  clock: () => Date;
}

export interface RetentionRunOptions {
  /** Erasures this run asks for at most (default: the job's maxCustomers). */
  maxCustomers?: number;
  /** Publish nothing and write nothing: count what the run would do, from where the current run stands. */
  dryRun?: boolean;
  /** Start even if the period since the last start has not passed (an on-demand run). */
  force?: boolean;
}

/**
 * The retention job (docs/privacy.md, "Retention"): customers past their retention period are erased
 * through the decider, one ErasePersonalData command each (source RETENTION_JOB, no override: the
 * decider checks the hold again against the log). A run is a pass over the `customers` read model in
 * chunks sorted by `_id`, read with `_id` alone in the filter (FerretDB v1) and judged in code. Its
 * cursor and counters are stored after every chunk, so a run stopped by its limit, a shutdown or a crash
 * resumes where it stopped; a crash between publishing and storing repeats that chunk's commands with
 * the same ids, and the decider ignores an erasure already made. A lease keeps two instances from
 * running it at once.
 */
export class RetentionJob {
  private readonly runs: Collection<RetentionRunDoc>;
  private readonly lease: RetentionLease;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionRunReport> | undefined;
  private stopped = false;

  constructor(private readonly opts: RetentionJobOptions) {
    if (!(opts.maxCustomers >= 1) || !(opts.chunkSize >= 1))
      throw new Error('retention job: maxCustomers and chunkSize must be at least 1');
    this.runs = opts.db.collection<RetentionRunDoc>(RETENTION_RUNS);
    this.lease = new RetentionLease({
      db: opts.db,
      collection: RETENTION_RUNS,
      owner: opts.instanceId ?? randomUUID(),
      periodMs: opts.periodMs,
      leaseMs: opts.leaseMs,
      clock: opts.clock,
    });
  }

  /** Checks every minute (or every period, if shorter) whether a run is due, and runs it. */
  start(): void {
    if (this.opts.periodMs <= 0) return;
    const checkMs = Math.min(this.opts.periodMs, CHECK_MS);
    const tick = () => {
      this.runOnce()
        .catch((err: unknown) =>
          this.opts.logger.error({ err }, 'retention run failed; it resumes at the next check'),
        )
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, checkMs);
        });
    };
    this.timer = setTimeout(tick, checkMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One bounded start: resumes the current run (or begins a new one) and stops at maxCustomers erasures. */
  async runOnce(options: RetentionRunOptions = {}): Promise<RetentionRunReport> {
    while (this.running) await this.running.catch(() => undefined);
    const max = options.maxCustomers ?? this.opts.maxCustomers;
    const started = options.dryRun ? this.dryRun(max) : this.run(max, options.force === true);
    this.running = started;
    try {
      return await started;
    } finally {
      this.running = undefined;
    }
  }

  private async dryRun(max: number): Promise<RetentionRunReport> {
    const runId = await this.lease.currentRunId();
    const run = runId ? await this.runs.findOne({ _id: runId }) : null;
    const open = run && run.finishedAt === null ? run : null;
    return this.scan({
      runId: open?._id ?? null,
      after: open?.after ?? null,
      before: noCounts(),
      max,
      dryRun: true,
    });
  }

  private async run(max: number, force: boolean): Promise<RetentionRunReport> {
    const { opts } = this;
    const claim = await this.lease.claim(force).catch((err: unknown) => {
      opts.metrics.failures.inc();
      throw err;
    });
    if (claim !== 'CLAIMED')
      return {
        status: claim,
        dryRun: false,
        runId: null,
        after: null,
        ...noCounts(),
        run: noCounts(),
        erasedByBusinessUnit: {},
      };
    opts.metrics.active.set(1);
    let status: RetentionRunStatus | undefined;
    try {
      const runId = await this.lease.currentRunId();
      let run = runId ? await this.runs.findOne({ _id: runId }) : null;
      if (run === null || run.finishedAt !== null) {
        const now = opts.clock();
        run = {
          _id: newRunId(now),
          after: null,
          ...noCounts(),
          startedAt: now,
          updatedAt: now,
          finishedAt: null,
        };
        await this.runs.insertOne(run);
        await this.lease.begin(run._id);
        opts.logger.info({ runId: run._id, maxCustomers: max }, 'retention run started');
      } else {
        opts.logger.info(
          { runId: run._id, after: run.after, scanned: run.scanned, erased: run.erased, maxCustomers: max },
          'retention run resumed',
        );
      }
      this.showProgress(run);
      const report = await this.scan({ runId: run._id, after: run.after, before: run, max, dryRun: false });
      status = report.status;
      return report;
    } catch (err) {
      opts.metrics.failures.inc();
      throw err;
    } finally {
      opts.metrics.active.set(0);
      // Stopped or failed: the run is due again at once (another instance, or this one at its next check).
      await this.lease
        .release(status === undefined || status === 'INTERRUPTED')
        .catch((err: unknown) =>
          opts.logger.warn({ err }, 'retention lease not released; it expires by itself'),
        );
    }
  }

  private async scan(p: {
    runId: string | null;
    after: string | null;
    before: Counts;
    max: number;
    dryRun: boolean;
  }): Promise<RetentionRunReport> {
    const { opts } = this;
    const customers = await opts.catalog.collection<RetentionCustomerDoc>('customers');
    const audit = opts.logger.child({ log: 'audit' }, { level: 'info' });
    let after = p.after;
    let here = noCounts();
    const erasedByBusinessUnit: Record<string, number> = {};
    const report = (status: RetentionRunStatus): RetentionRunReport => ({
      status,
      dryRun: p.dryRun,
      runId: p.runId,
      after,
      ...here,
      run: p.dryRun ? here : addCounts(p.before, here),
      erasedByBusinessUnit,
    });
    const pages = withLastPage(
      pagesById(
        customers,
        {},
        {
          projection: RETENTION_PROJECTION,
          pageSize: opts.chunkSize,
          after,
          dialect: await detectDialect(opts.db),
          // FerretDB reads the ids first: minutes on a large book, so the lease is renewed meanwhile.
          onIdScan: async (read) => {
            if (!p.dryRun) await this.lease.renew();
            opts.logger.info(
              { runId: p.runId, dryRun: p.dryRun, read },
              'retention: reading the ids of the customers to go through',
            );
          },
        },
      ),
    );
    for await (const { rows, last } of pages) {
      if (this.stopped) return report('INTERRUPTED');
      if (!p.dryRun && !(await this.lease.renew())) {
        opts.logger.warn({ runId: p.runId, after }, 'retention lease lost; the run stops here');
        return report('INTERRUPTED');
      }
      const now = opts.clock().toISOString();
      const chunk = noCounts();
      const messages: OutgoingMessage[] = [];
      let limitReached = false;
      for (const row of rows) {
        if (here.erased + chunk.erased >= p.max) {
          limitReached = true;
          break;
        }
        const verdict = erasureCandidate(row, opts.policy, now);
        chunk.scanned++;
        if (verdict.outcome === 'erase') {
          chunk.erased++;
          erasedByBusinessUnit[row.businessUnit] = (erasedByBusinessUnit[row.businessUnit] ?? 0) + 1;
          if (!p.dryRun)
            messages.push(this.erasure(p.runId!, row, verdict.retentionYears, verdict.reason, now));
        } else {
          chunk[verdict.outcome]++;
        }
        after = row._id;
      }
      if (messages.length > 0) {
        await opts.publisher!.publish(messages);
        // docs/privacy.md, "Audit events": one per customer whose erasure the job asked for, like the
        // ingress's for the erasure API; pseudonymous ids only.
        for (const m of messages) {
          const c = m.value as CustomerCommand;
          audit.info(
            {
              audit: {
                action: 'customer.personal-data-erase',
                outcome: 'ALLOWED',
                subject: 'retention-job',
                businessUnit: c.businessUnit,
                customerExtId: c.customerExtId,
                communicationNumber: c.correlationId,
                runId: p.runId,
              },
            },
            'audit',
          );
        }
      }
      here = addCounts(here, chunk);
      const finished = !limitReached && last;
      const run = addCounts(p.before, here);
      if (!p.dryRun) {
        const at = opts.clock();
        await this.runs.updateOne(
          { _id: p.runId! },
          { $set: { after, ...run, updatedAt: at, ...(finished ? { finishedAt: at } : {}) } },
        );
        opts.metrics.customers.labels('erased').inc(chunk.erased);
        opts.metrics.customers.labels('held').inc(chunk.held);
        opts.metrics.customers.labels('skipped').inc(chunk.skipped);
        this.showProgress(run);
        if (finished) opts.metrics.lastFinished.set(at.getTime() / 1000);
      }
      // Counts and ids only: the documents were read without personal data, and none is logged.
      opts.logger.info(
        { runId: p.runId, dryRun: p.dryRun, after, chunk, ...(p.dryRun ? here : run), finished },
        p.dryRun ? 'retention dry run progress' : 'retention run progress',
      );
      if (limitReached) return report('LIMIT_REACHED');
      if (!finished && opts.pauseMs > 0) await new Promise((r) => setTimeout(r, opts.pauseMs));
    }
    // The last page was handed out (the loop ends after it).
    return report('FINISHED');
  }

  private erasure(
    runId: string,
    row: RetentionCustomerDoc,
    retentionYears: number,
    reason: string,
    issuedAt: string,
  ): OutgoingMessage {
    const command: CustomerCommand = {
      commandId: retentionCommandId(runId, row._id),
      type: 'ErasePersonalData',
      streamId: row._id,
      issuedAt,
      correlationId: `retention-${runId}`,
      businessUnit: row.businessUnit,
      customerExtId: row.customerExtId,
      issuedBy: 'evaluation',
      data: {
        reason,
        requestedBy: 'retention-job',
        override: false,
        retentionYears,
        source: 'RETENTION_JOB',
      },
    };
    return { topic: this.opts.commandsTopic, key: row._id, type: command.type, value: command };
  }

  private showProgress(run: Counts): void {
    for (const key of ['scanned', 'erased', 'held', 'skipped'] as const)
      this.opts.metrics.progress.labels(key).set(run[key]);
  }
}
