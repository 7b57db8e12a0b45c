import {
  commonConfigSpec,
  createLogger,
  loadConfig,
  mongoConfigSpec,
  parseCommandLine,
  runCommand,
} from '@crs/runtime';
import { setUpMessaging } from '@crs/messaging';
import { connectMongo } from '@crs/store';
import { replayProjections, type ReplayProgress } from '../replay';

const USAGE = `usage: replay [--build-only]

Rebuilds the projector's read models (customers, assessments, screenings, communication_events) from
the whole customer event log into fresh collections, builds their indexes and switches the catalogue to
them; operations and alerts (the archive service's) are left as they are. Stop the projector first
(docs/operations.md, "Replaying projections"). Progress is logged every second: the log read (offsets),
then the customers written (documents); the last line gives each phase's seconds.

  --build-only   build and index the fresh collections but do not switch to them (their names are in the
                 last line); the live read models stay active
  -h, --help     this text

Settings come from the environment, as for the projector (KAFKA_*, TOPIC_PREFIX, SCHEMA_REGISTRY_*,
MONGODB_*). Exit 0 when done, 1 on an error, 2 on wrong usage.
`;

/** `replay`: rebuild every projection from the event log into fresh collections and swap them in. */
async function main(argv: string[]): Promise<number> {
  const line = parseCommandLine(argv, USAGE, {
    options: { 'build-only': { type: 'boolean', default: false } },
  });
  if ('exitCode' in line) return line.exitCode;
  const config = loadConfig({ ...commonConfigSpec, ...mongoConfigSpec });
  const logger = createLogger('projector-replay', config.LOG_LEVEL);
  const { client, db, ownDb } = await connectMongo(config);
  const messaging = await setUpMessaging(config, 'projector-replay', logger);
  const suffix = `r${new Date()
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 17)}`;
  let last = 0;
  const report = (p: ReplayProgress) => {
    // Every second, and always the end of the customers phase.
    if (Date.now() - last < 1000 && !(p.phase === 'customers' && p.done === p.total)) return;
    last = Date.now();
    const percent = p.total > 0 ? Math.floor((p.done * 1000) / p.total) / 10 : 100;
    const counted = p.phase === 'log' ? 'read' : 'written';
    logger.info(
      { phase: p.phase, [counted]: String(p.done), total: String(p.total), percent },
      'replay progress',
    );
  };
  try {
    const activate = !line.values['build-only'];
    const result = await replayProjections({
      db,
      messaging,
      logger,
      suffix,
      activate,
      // Erasures recorded in the log are applied to the key store again (after a restore of data_keys).
      keysDb: ownDb('keys'),
      onProgress: report,
    });
    logger.info(
      {
        events: result.events,
        customers: result.customers,
        erasuresReapplied: result.erasuresReapplied,
        seconds: result.seconds,
        phases: result.phases,
        collections: result.collections,
      },
      activate ? 'replay done; new projections active' : 'replay done; new projections built, not active',
    );
    return 0;
  } finally {
    await client.close();
  }
}

runCommand('replay', main);
