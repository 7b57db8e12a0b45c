import { randomBytes, randomUUID } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import type { CustomerCommand } from '@crs/contracts';
import type { DurablePublisher, OutgoingMessage } from '@crs/messaging';
import {
  relationshipEnded,
  relationshipFactsOf,
  retentionHold,
  retentionYearsFor,
  type RelationshipDoc,
  type RetentionPolicy,
} from '@crs/privacy';
import { Counter, Gauge, getOrCreate, type Logger, type Registry } from '@crs/runtime';
import type { ProjectionCatalog } from '@crs/store';

/** Owned by the evaluation service: one progress document per retention run, and the `current` lease. */
export const RETENTION_RUNS = 'retention_runs';
const CURRENT = 'current';
/** How often the schedule asks whether a run is due (at most: a shorter period asks that often). */
const CHECK_MS = 60_000;

/** What the job reads of a customer in the `customers` read model: keys and relationship facts, no personal data. */
export interface RetentionCustomerDoc extends RelationshipDoc {
  _id: string;
  businessUnit: string;
  customerExtId: string;
  personalDataErased?: boolean | null;
}

const PROJECTION = {
  _id: 1,
  businessUnit: 1,
  customerExtId: 1,
  status: 1,
  simplified: 1,
  closingDate: 1,
  statusChangedAt: 1,
  updatedAt: 1,
  personalDataErased: 1,
} as const;

export type RetentionVerdict =
  | { outcome: 'erase'; retentionYears: number; endedAt: string; holdUntil: string; reason: string }
  | { outcome: 'held'; retentionYears: number; endedAt: string | null; holdUntil: string | null }
  | { outcome: 'skipped'; why: 'ERASED' | 'OPEN' };

/**
 * The selection rule of the retention job, pure: a customer whose relationship ended (CLOSED, REJECTED,
 * occasional) and whose retention period is over is erased; one whose period still runs (or whose end
 * cannot be read) is held; an open relationship or a customer already erased is skipped. The relationship
 * end is read from the document as the erasure API reads it, and the decider checks the hold again.
 */
export function erasureCandidate(
  doc: RetentionCustomerDoc,
  policy: RetentionPolicy,
  now: string,
): RetentionVerdict {
  if (doc.personalDataErased === true) return { outcome: 'skipped', why: 'ERASED' };
  const facts = relationshipFactsOf(doc);
  if (!relationshipEnded(facts)) return { outcome: 'skipped', why: 'OPEN' };
  const retentionYears = retentionYearsFor(policy, doc.businessUnit);
  const hold = retentionHold(facts, retentionYears, now);
  if (hold.held || hold.endedAt === null || hold.holdUntil === null)
    return { outcome: 'held', retentionYears, endedAt: hold.endedAt, holdUntil: hold.holdUntil };
  return {
    outcome: 'erase',
    retentionYears,
    endedAt: hold.endedAt,
    holdUntil: hold.holdUntil,
    reason: `retention period over (${retentionYears} years after ${hold.endedAt})`,
  };
}

/** The same customer in the same run always gets the same command id: a resumed run repeats it harmlessly. */
export function retentionCommandId(runId: string, streamId: string): string {
  return `retention:${runId}:${streamId}`;
}

/** Sortable by start and unique across resets of `retention_runs` (command ids derive from it). */
function newRunId(at: Date): string {
  return `${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${randomBytes(4).toString('hex')}`;
}

interface Counts {
  scanned: number;
  erased: number;
  held: number;
  skipped: number;
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

/** The `current` document: which run is under way, who holds the lease, when a run last started. */
interface CurrentDoc {
  _id: string;
  runId: string | null;
  owner: string | null;
  leaseUntil: Date;
  lastStartedAt: Date;
}

export interface RetentionMetrics {
  customers: Counter<'outcome'>;
  progress: Gauge<'count'>;
  active: Gauge;
  lastFinished: Gauge;
  failures: Counter;
}

export function retentionMetrics(registry: Registry): RetentionMetrics {
  return {
    customers: getOrCreate(
      registry,
      'retention_customers_total',
      () =>
        new Counter({
          name: 'retention_customers_total',
          help: 'Customers the retention job handled, by outcome (erased: erasure asked for; held: retention period runs; skipped: open or already erased)',
          labelNames: ['outcome'],
          registers: [registry],
        }),
    ),
    progress: getOrCreate(
      registry,
      'retention_run_progress',
      () =>
        new Gauge({
          name: 'retention_run_progress',
          help: 'Counters of the current (or last) retention run: scanned, erased, held, skipped',
          labelNames: ['count'],
          registers: [registry],
        }),
    ),
    active: getOrCreate(
      registry,
      'retention_run_active',
      () =>
        new Gauge({
          name: 'retention_run_active',
          help: '1 while this instance runs the retention job',
          registers: [registry],
        }),
    ),
    lastFinished: getOrCreate(
      registry,
      'retention_run_last_finished_timestamp_seconds',
      () =>
        new Gauge({
          name: 'retention_run_last_finished_timestamp_seconds',
          help: 'When this instance last finished a retention run (a whole pass over the customers)',
          registers: [registry],
        }),
    ),
    failures: getOrCreate(
      registry,
      'retention_run_failures_total',
      () =>
        new Counter({
          name: 'retention_run_failures_total',
          help: 'Retention runs that stopped on an error (the next check resumes them)',
          registers: [registry],
        }),
    ),
  };
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

const zero = (): Counts => ({ scanned: 0, erased: 0, held: 0, skipped: 0 });
const add = (a: Counts, b: Counts): Counts => ({
  scanned: a.scanned + b.scanned,
  erased: a.erased + b.erased,
  held: a.held + b.held,
  skipped: a.skipped + b.skipped,
});

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
  private readonly current: Collection<CurrentDoc>;
  private readonly instanceId: string;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionRunReport> | undefined;
  private stopped = false;

  constructor(private readonly opts: RetentionJobOptions) {
    if (!(opts.maxCustomers >= 1) || !(opts.chunkSize >= 1))
      throw new Error('retention job: maxCustomers and chunkSize must be at least 1');
    this.runs = opts.db.collection<RetentionRunDoc>(RETENTION_RUNS);
    this.current = opts.db.collection<CurrentDoc>(RETENTION_RUNS);
    this.instanceId = opts.instanceId ?? randomUUID();
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
    const current = await this.current.findOne({ _id: CURRENT });
    const run = current?.runId ? await this.runs.findOne({ _id: current.runId }) : null;
    const open = run && run.finishedAt === null ? run : null;
    return this.scan({
      runId: open?._id ?? null,
      after: open?.after ?? null,
      before: zero(),
      max,
      dryRun: true,
    });
  }

  private async run(max: number, force: boolean): Promise<RetentionRunReport> {
    const { opts } = this;
    const claim = await this.claim(force).catch((err: unknown) => {
      opts.metrics.failures.inc();
      throw err;
    });
    if (claim !== 'CLAIMED')
      return {
        status: claim,
        dryRun: false,
        runId: null,
        after: null,
        ...zero(),
        run: zero(),
        erasedByBusinessUnit: {},
      };
    opts.metrics.active.set(1);
    let status: RetentionRunStatus | undefined;
    try {
      const current = await this.current.findOne({ _id: CURRENT });
      let run = current?.runId ? await this.runs.findOne({ _id: current.runId }) : null;
      if (run === null || run.finishedAt !== null) {
        const now = opts.clock();
        run = {
          _id: newRunId(now),
          after: null,
          ...zero(),
          startedAt: now,
          updatedAt: now,
          finishedAt: null,
        };
        await this.runs.insertOne(run);
        await this.current.updateOne({ _id: CURRENT, owner: this.instanceId }, { $set: { runId: run._id } });
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
      await this.release(status === undefined || status === 'INTERRUPTED').catch((err: unknown) =>
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
    let here = zero();
    const erasedByBusinessUnit: Record<string, number> = {};
    const report = (status: RetentionRunStatus): RetentionRunReport => ({
      status,
      dryRun: p.dryRun,
      runId: p.runId,
      after,
      ...here,
      run: p.dryRun ? here : add(p.before, here),
      erasedByBusinessUnit,
    });
    for (;;) {
      if (this.stopped) return report('INTERRUPTED');
      if (!p.dryRun && !(await this.renew())) {
        opts.logger.warn({ runId: p.runId, after }, 'retention lease lost; the run stops here');
        return report('INTERRUPTED');
      }
      const rows = await customers
        .find(after === null ? {} : { _id: { $gt: after } }, { projection: PROJECTION })
        .sort({ _id: 1 })
        .limit(opts.chunkSize)
        .toArray();
      const now = opts.clock().toISOString();
      const chunk = zero();
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
      here = add(here, chunk);
      const finished = !limitReached && rows.length < opts.chunkSize;
      const run = add(p.before, here);
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
      if (finished) return report('FINISHED');
      if (limitReached) return report('LIMIT_REACHED');
      if (opts.pauseMs > 0) await new Promise((r) => setTimeout(r, opts.pauseMs));
    }
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

  /** Takes the lease when nobody holds it (or it expired) and, unless forced, a period has passed. */
  private async claim(force: boolean): Promise<'CLAIMED' | 'LEASE_HELD' | 'NOT_DUE'> {
    const { opts } = this;
    const now = opts.clock();
    // The first scheduled run comes one period after the job first ran in this store: time for a dry run.
    if (!(await this.current.findOne({ _id: CURRENT }, { projection: { _id: 1 } })))
      await this.current
        .insertOne({ _id: CURRENT, runId: null, owner: null, leaseUntil: new Date(0), lastStartedAt: now })
        .catch((err: { code?: number }) => {
          if (err.code !== 11000) throw err;
        });
    const filter: Filter<CurrentDoc> = {
      _id: CURRENT,
      $or: [{ owner: this.instanceId }, { leaseUntil: { $lt: now } }],
    };
    if (!force) filter.lastStartedAt = { $lte: new Date(now.getTime() - opts.periodMs) };
    const claimed = await this.current.updateOne(filter, {
      $set: {
        owner: this.instanceId,
        leaseUntil: new Date(now.getTime() + opts.leaseMs),
        lastStartedAt: now,
      },
    });
    if (claimed.matchedCount === 1) return 'CLAIMED';
    const doc = await this.current.findOne({ _id: CURRENT });
    return doc && doc.owner !== null && doc.owner !== this.instanceId && doc.leaseUntil >= now
      ? 'LEASE_HELD'
      : 'NOT_DUE';
  }

  private async renew(): Promise<boolean> {
    const until = new Date(this.opts.clock().getTime() + this.opts.leaseMs);
    const renewed = await this.current.updateOne(
      { _id: CURRENT, owner: this.instanceId },
      { $set: { leaseUntil: until } },
    );
    return renewed.matchedCount === 1;
  }

  private async release(dueAgain: boolean): Promise<void> {
    await this.current.updateOne(
      { _id: CURRENT, owner: this.instanceId },
      { $set: { owner: null, leaseUntil: new Date(0), ...(dueAgain ? { lastStartedAt: new Date(0) } : {}) } },
    );
  }
}
