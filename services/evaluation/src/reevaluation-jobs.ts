import type { Collection, Db } from 'mongodb';
import type { CustomerCommand, RiskMatrixActivated } from '@crs/contracts';
import type { DurablePublisher } from '@crs/messaging';
import type { Counter, Logger } from '@crs/runtime';
import {
  Lease,
  detectDialect,
  pagesById,
  withLastPage,
  type CustomerDoc,
  type LeaseDoc,
  type ProjectionCatalog,
} from '@crs/store';
import { reevaluationCommandId } from './domain/message-ids';

/** Owned by the evaluation service: progress of re-evaluations after matrix activations (resumable). */
export const REEVALUATION_JOBS = 'evaluation_reevaluation_jobs';

/** A job's own fields; its document holds its lease too (owner, leaseUntil). */
interface JobFields {
  matrixId: string;
  version: number;
  businessUnit: string;
  status: 'RUNNING' | 'DONE' | 'SUPERSEDED';
  /** _id (streamId) of the last customer handled: the job resumes after it. */
  cursor: string | null;
  scanned: number;
  published: number;
  createdAt: Date;
  updatedAt: Date;
}
type JobDoc = LeaseDoc<JobFields>;

/** What a job reads of a customer in the `customers` read model. */
type CustomerRow = Pick<CustomerDoc, '_id' | 'businessUnit' | 'customerExtId' | 'riskManagementCategory'>;

export interface ReevaluationJobsOptions {
  db: Db;
  catalog: ProjectionCatalog;
  publisher: Pick<DurablePublisher, 'publish'>;
  commandsTopic: string;
  logger: Logger;
  published: Counter<'reason'>;
  chunkSize: number;
  pauseMs: number;
  leaseMs: number;
  instanceId: string;
  clock: () => Date;
  /** Still the latest activation of its matrix? A superseded job stops; the newer one covers its customers. */
  isCurrent(activation: RiskMatrixActivated): boolean;
  /** Is the activated matrix the one that now evaluates this customer? */
  serves(activation: RiskMatrixActivated, customer: CustomerRow): boolean;
}

/**
 * Re-evaluation after a matrix activation: the customers the matrix serves are enumerated from the
 * customers projection (only to enumerate: the decision itself is made from the event log) in chunks
 * sorted by stream id (`pagesById`: decision 0063), and a RequestReevaluation { reason: MATRIX_ACTIVATED } is published for each.
 * Jobs run one at a time in the background, never on the consuming path, so imports keep flowing; the
 * cursor is stored after every chunk, so a restarted service resumes where it stopped, and a lease keeps
 * two instances from running the same job at once.
 */
export class ReevaluationJobs {
  private readonly jobs: Collection<JobDoc>;
  private readonly queue: RiskMatrixActivated[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: ReevaluationJobsOptions) {
    this.jobs = opts.db.collection<JobDoc>(REEVALUATION_JOBS);
  }

  enqueue(activation: RiskMatrixActivated): void {
    if (this.stopped) return;
    this.queue.push(activation);
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when every queued job finished (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    await this.running?.catch(() => undefined);
  }

  private async drain(): Promise<void> {
    for (let next = this.queue.shift(); next && !this.stopped; next = this.queue.shift()) {
      try {
        await this.run(next);
      } catch (err) {
        // The cursor is stored: the next start (or the next activation) resumes the job.
        this.opts.logger.error(
          { err, activationId: next.eventId, matrixId: next.matrixId },
          're-evaluation job failed; it resumes on restart',
        );
      }
    }
  }

  private async run(activation: RiskMatrixActivated): Promise<void> {
    const { opts } = this;
    const now = opts.clock();
    const lease = new Lease<JobFields>({
      db: opts.db,
      collection: REEVALUATION_JOBS,
      id: activation.eventId,
      owner: opts.instanceId,
      leaseMs: opts.leaseMs,
      clock: opts.clock,
    });
    await lease.create({
      matrixId: activation.matrixId,
      version: activation.version,
      businessUnit: activation.businessUnit,
      status: 'RUNNING',
      cursor: null,
      scanned: 0,
      published: 0,
      createdAt: now,
      updatedAt: now,
    });
    const claimed = await lease.acquire({ at: now, where: { status: 'RUNNING' }, set: { updatedAt: now } });
    if (!claimed) return; // done, superseded, or another instance holds the lease
    let job = (await lease.read())!;
    const log = {
      activationId: activation.eventId,
      matrixId: activation.matrixId,
      version: activation.version,
      businessUnit: activation.businessUnit,
    };
    opts.logger.info(
      { ...log, resumeAfter: job.cursor, scanned: job.scanned, published: job.published },
      're-evaluation job started',
    );
    const customers = await opts.catalog.collection<CustomerRow>('customers');
    const pages = withLastPage(
      pagesById(
        customers,
        {
          businessUnit: activation.businessUnit,
          // As the decider does for changed screening: only customers whose level the system evaluates.
          sourceOfRiskLevel: 'EVALUATE',
          simplified: { $ne: true },
          status: { $ne: 'CLOSED' },
        },
        {
          projection: { _id: 1, businessUnit: 1, customerExtId: 1, riskManagementCategory: 1 },
          pageSize: opts.chunkSize,
          after: job.cursor,
          dialect: await detectDialect(opts.db),
          // FerretDB reads the ids first: minutes on a large book, so the lease is renewed meanwhile.
          onIdScan: async (read) => {
            await lease.renew();
            opts.logger.info(
              { ...log, read },
              're-evaluation: reading the ids of the customers to go through',
            );
          },
        },
      ),
    );
    for await (const { rows, last: done } of pages) {
      if (this.stopped) return;
      if (!opts.isCurrent(activation)) {
        await this.jobs.updateOne(
          { _id: job._id },
          { $set: { status: 'SUPERSEDED', updatedAt: opts.clock() } },
        );
        opts.logger.info(
          { ...log, scanned: job.scanned, published: job.published },
          're-evaluation job superseded by a newer activation',
        );
        return;
      }
      const affected = rows.filter((r) => opts.serves(activation, r));
      const issuedAt = opts.clock().toISOString();
      await opts.publisher.publish(
        affected.map((r) => {
          const command: CustomerCommand = {
            commandId: reevaluationCommandId(activation.eventId, r._id),
            type: 'RequestReevaluation',
            streamId: r._id,
            issuedAt,
            correlationId: `matrix-${activation.matrixId}-v${activation.version}`,
            causationId: activation.eventId,
            businessUnit: r.businessUnit,
            customerExtId: r.customerExtId,
            issuedBy: 'evaluation',
            data: { reason: 'MATRIX_ACTIVATED' },
          };
          return { topic: opts.commandsTopic, key: r._id, type: command.type, value: command };
        }),
      );
      opts.published.labels('MATRIX_ACTIVATED').inc(affected.length);
      const at = opts.clock();
      const update = {
        cursor: rows.length > 0 ? rows[rows.length - 1]!._id : job.cursor,
        scanned: job.scanned + rows.length,
        published: job.published + affected.length,
        status: done ? ('DONE' as const) : ('RUNNING' as const),
        // The lease is renewed with the progress, in one write, by its owner only.
        leaseUntil: lease.until(at),
        updatedAt: at,
      };
      if (!(await lease.write(update))) {
        // Another instance took the job over (this one stalled past its lease): it resumes from the
        // cursor it holds. The commands this one published last carry the same ids as the new owner's,
        // so the decider applies each once.
        opts.logger.warn(
          { ...log, scanned: job.scanned, published: job.published },
          're-evaluation job lease lost to another instance; stopping',
        );
        return;
      }
      job = { ...job, ...update };
      opts.logger.info(
        { ...log, scanned: job.scanned, published: job.published, done },
        're-evaluation progress',
      );
      if (done) return;
      if (opts.pauseMs > 0) await new Promise((r) => setTimeout(r, opts.pauseMs));
    }
  }
}
