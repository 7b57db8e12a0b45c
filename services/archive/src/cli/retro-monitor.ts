#!/usr/bin/env node
// On-demand retrospective monitoring: `node services/archive/dist/cli/retro-monitor.js [--lookback-days N]`.
// Uses the archive service's settings (TOPIC_PREFIX, MONGODB_DB, CRS_SHARED_DATA, RETRO_*), screens the
// non-archived operations of the look-back window once, publishes the new alerts, prints a JSON summary.
// Progress is recorded chunk by chunk in MongoDB (retro_runs, retro_run_progress; docs/operations-archive.md).
import { randomUUID } from 'node:crypto';
import { createLogger, parseCommandLine, runCommand, usageError } from '@crs/runtime';
import { DurablePublisher, setUpMessaging } from '@crs/messaging';
import { ProjectionCatalog, connectMongo, detectDialect, type AlertDoc, type OperationDoc } from '@crs/store';
import { resolveSharedDataDir } from '@crs/screening-core';
import { loadArchiveConfig } from '../config';
import { RetroMonitor, retroRunLog } from '../retro/retro-monitor';
import { loadSanctionsFromDataDir } from '../retro/sanctions-index';

const USAGE = `usage: retro-monitor [--lookback-days N]

Screens the non-archived operations of the look-back window once against today's sanctions lists,
publishes the new alerts and prints a JSON summary (docs/operations-archive.md).

  --lookback-days N   the window in days (default RETRO_LOOKBACK_DAYS)
  -h, --help          this text

Settings come from the archive service's environment. Exit 0 when done, 1 on an error, 2 on wrong usage.
`;

async function main(argv: string[]): Promise<number> {
  const line = parseCommandLine(argv, USAGE, { options: { 'lookback-days': { type: 'string' } } });
  if ('exitCode' in line) return line.exitCode;
  const config = loadArchiveConfig();
  const given = line.values['lookback-days'];
  const lookbackDays = given !== undefined ? Number(given) : config.RETRO_LOOKBACK_DAYS;
  if (given !== undefined && (given.trim() === '' || !Number.isFinite(lookbackDays) || lookbackDays < 0)) {
    return usageError(USAGE, '--lookback-days must be a number of days, 0 or more');
  }
  const logger = createLogger('retro-monitor', config.LOG_LEVEL);
  const { client, db } = await connectMongo(config);
  const { kafka, serde, topics } = await setUpMessaging(config, 'retro-monitor', logger);
  const publisher = new DurablePublisher(kafka, serde);
  try {
    const catalog = new ProjectionCatalog(db);
    const dataDir = resolveSharedDataDir({ CRS_SHARED_DATA: config.CRS_SHARED_DATA || undefined });
    const sanctions = loadSanctionsFromDataDir(dataDir, new Date().toISOString());
    const monitor = new RetroMonitor({
      operations: () => catalog.collection<OperationDoc>('operations'),
      alerts: () => catalog.collection<AlertDoc>('alerts'),
      publisher,
      eventsTopic: topics.operationEvents,
      logger,
      lookbackDays,
      chunkSize: config.RETRO_CHUNK_SIZE,
      threshold: config.RETRO_THRESHOLD,
      clock: () => new Date(),
      runLog: await retroRunLog(db),
      dialect: await detectDialect(db),
    });
    const summary = await monitor.run(sanctions, `retro:cli:${randomUUID()}`);
    console.log(JSON.stringify(summary));
    return 0;
  } finally {
    await publisher.disconnect().catch(() => undefined);
    await client.close();
  }
}

runCommand('retro-monitor', main);
