import { createHash } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { Logger } from '@crs/runtime';
import type { RetroMonitoringAlertRaised } from '@crs/contracts';
import { DEFAULT_THRESHOLD, screen } from '@crs/screening-core';
import type { DurablePublisher } from '@crs/messaging';
import { pagesById, type AlertDoc, type OperationDoc, type StoreDialect } from '@crs/store';
import type { SanctionsIndex } from './sanctions-index';

export interface RetroRunSummary {
  runId: string;
  fromDate: string;
  scanned: number;
  matched: number;
  raised: number;
  alreadyRaised: number;
}

/** Where runs report themselves: one document per run, one progress document per chunk. */
export const RetroCollections = { runs: 'retro_runs', progress: 'retro_run_progress' } as const;

export interface RetroRunDoc {
  _id: string;
  status: 'running' | 'finished' | 'failed';
  fromDate: string;
  lookbackDays: number;
  chunkSize: number;
  startedAt: Date;
  updatedAt: Date;
  finishedAt?: Date;
  chunks: number;
  scanned: number;
  matched: number;
  raised: number;
  alreadyRaised: number;
  /** Error code or name of a failed run (never the message: it may quote data). */
  error?: string;
}

export interface RetroProgressDoc {
  _id: string;
  runId: string;
  chunk: number;
  at: Date;
  /** Operations of this chunk, and running totals of the run after it. */
  chunkSize: number;
  scanned: number;
  matched: number;
  raised: number;
  alreadyRaised: number;
}

export interface RetroRunLog {
  runs: Collection<RetroRunDoc>;
  progress: Collection<RetroProgressDoc>;
}

export async function retroRunLog(db: Db): Promise<RetroRunLog> {
  const log = {
    runs: db.collection<RetroRunDoc>(RetroCollections.runs),
    progress: db.collection<RetroProgressDoc>(RetroCollections.progress),
  };
  await log.runs.createIndex({ startedAt: -1 });
  await log.progress.createIndex({ runId: 1, chunk: 1 });
  return log;
}

export interface RetroMonitorOptions {
  operations: () => Promise<Collection<OperationDoc>>;
  alerts: () => Promise<Collection<AlertDoc>>;
  publisher: DurablePublisher;
  eventsTopic: string;
  logger: Logger;
  lookbackDays: number;
  chunkSize: number;
  /** 0 or less: the screening default. */
  threshold: number;
  clock: () => Date;
  /** Where the run records its progress chunk by chunk; without it, progress goes to the log only. */
  runLog?: RetroRunLog;
  /** The store's kind, for reading the operations in pages (`pagesById`, decision 0063). */
  dialect: StoreDialect;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** One alert per operation, list entry and list snapshot: the id is derived from exactly those. */
export function alertId(streamId: string, source: string, entryId: string, snapshotVersion: string): string {
  const digest = createHash('sha256')
    .update(`${streamId}\u0000${source}\u0000${entryId}\u0000${snapshotVersion}`)
    .digest('hex');
  return `retro-${digest.slice(0, 40)}`;
}

/**
 * Retrospective monitoring: the counterparties of non-archived operations booked within the look-back
 * window are screened against the sanctions index, in chunks read from the operations projection in
 * _id order, and every new match is published as RetroMonitoringAlertRaised. Archived operations are
 * filtered out by the query itself, so they never take part.
 */
export class RetroMonitor {
  constructor(private readonly opts: RetroMonitorOptions) {}

  async run(sanctions: SanctionsIndex, runId: string): Promise<RetroRunSummary> {
    const { runLog } = this.opts;
    try {
      return await this.scan(sanctions, runId);
    } catch (err) {
      const error = (err as { code?: unknown }).code ?? (err instanceof Error ? err.name : 'Error');
      await runLog?.runs
        .updateOne(
          { _id: runId },
          { $set: { status: 'failed', error: String(error), updatedAt: this.opts.clock() } },
        )
        .catch(() => undefined);
      throw err;
    }
  }

  private async scan(sanctions: SanctionsIndex, runId: string): Promise<RetroRunSummary> {
    const { opts } = this;
    const { runLog } = opts;
    const now = opts.clock();
    const fromDate = new Date(now.getTime() - opts.lookbackDays * DAY_MS).toISOString().slice(0, 10);
    const threshold = opts.threshold > 0 ? opts.threshold : DEFAULT_THRESHOLD;
    const operations = await opts.operations();
    const alerts = await opts.alerts();
    const summary: RetroRunSummary = { runId, fromDate, scanned: 0, matched: 0, raised: 0, alreadyRaised: 0 };
    await runLog?.runs.insertOne({
      _id: runId,
      status: 'running',
      fromDate,
      lookbackDays: opts.lookbackDays,
      chunkSize: opts.chunkSize,
      startedAt: now,
      updatedAt: now,
      chunks: 0,
      scanned: 0,
      matched: 0,
      raised: 0,
      alreadyRaised: 0,
    });
    let chunks = 0;
    opts.logger.info(
      { runId, fromDate, sanctionsEntries: sanctions.entryCount },
      'retro monitoring run started',
    );
    const pages = pagesById(
      operations,
      { archived: { $ne: true }, date: { $gte: fromDate } },
      {
        pageSize: opts.chunkSize,
        after: null,
        dialect: opts.dialect,
        onIdScan: (read) =>
          opts.logger.info(
            { runId, read },
            'retro monitoring: reading the ids of the operations in the window',
          ),
      },
    );
    for await (const chunk of pages) {
      const candidates: RetroMonitoringAlertRaised[] = [];
      for (const op of chunk) {
        summary.scanned++;
        const hits = screen(
          sanctions.index,
          { name: op.counterparty.name, lists: ['SANCTIONS'] },
          { threshold },
        );
        for (const hit of hits) {
          summary.matched++;
          const snapshotVersion = sanctions.versions.get(hit.source) ?? 'unknown';
          const id = alertId(op._id, hit.source, hit.entryId, snapshotVersion);
          candidates.push({
            eventId: id,
            type: 'RetroMonitoringAlertRaised',
            streamId: op._id,
            occurredAt: opts.clock().toISOString(),
            correlationId: runId,
            causationId: runId,
            businessUnit: op.businessUnit,
            operationExtId: op.extId,
            customerExtId: op.customerExtId,
            data: {
              operationExtId: op.extId,
              businessUnit: op.businessUnit,
              customerExtId: op.customerExtId,
              counterpartyName: op.counterparty.name,
              list: hit.list,
              source: hit.source,
              entryId: hit.entryId,
              matchedName: hit.matchedName,
              score: hit.score,
              snapshotVersion,
              operationDate: op.date,
              runId,
            },
          });
        }
      }
      const known = candidates.length
        ? new Set(
            (
              await alerts
                .find({ _id: { $in: candidates.map((c) => c.eventId) } }, { projection: { _id: 1 } })
                .toArray()
            ).map((a) => a._id),
          )
        : new Set<string>();
      const fresh = candidates.filter((c) => !known.has(c.eventId));
      summary.alreadyRaised += candidates.length - fresh.length;
      await opts.publisher.publish(
        fresh.map((e) => ({ topic: opts.eventsTopic, key: e.streamId, type: e.type, value: e })),
      );
      summary.raised += fresh.length;
      chunks++;
      // Counts only: counterparty names are personal data and stay out of the logs.
      opts.logger.info(
        { runId, chunk: chunks, scanned: summary.scanned, raised: summary.raised },
        'retro monitoring progress',
      );
      if (runLog) {
        const at = opts.clock();
        const totals = {
          scanned: summary.scanned,
          matched: summary.matched,
          raised: summary.raised,
          alreadyRaised: summary.alreadyRaised,
        };
        await runLog.progress.insertOne({
          _id: `${runId}#${chunks}`,
          runId,
          chunk: chunks,
          at,
          chunkSize: chunk.length,
          ...totals,
        });
        await runLog.runs.updateOne({ _id: runId }, { $set: { chunks, updatedAt: at, ...totals } });
      }
      if (chunk.length < opts.chunkSize) break;
    }
    const finishedAt = opts.clock();
    await runLog?.runs.updateOne(
      { _id: runId },
      {
        $set: {
          status: 'finished',
          chunks,
          updatedAt: finishedAt,
          finishedAt,
          scanned: summary.scanned,
          matched: summary.matched,
          raised: summary.raised,
          alreadyRaised: summary.alreadyRaised,
        },
      },
    );
    opts.logger.info({ ...summary, chunks }, 'retro monitoring run finished');
    return summary;
  }
}
