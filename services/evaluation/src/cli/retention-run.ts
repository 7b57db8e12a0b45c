import { CustomerPrivacy } from '@crs/privacy';
import { createLogger, createMetricsRegistry, parseCommandLine, runCommand, usageError } from '@crs/runtime';
import { DurablePublisher, setUpMessaging } from '@crs/messaging';
import { ProjectionCatalog, connectMongo } from '@crs/store';
import { loadEvaluationConfig } from '../config';
import { RetentionJob, retentionSettingsOf } from '../retention/retention-job';
import { retentionMetrics } from '../retention/retention-metrics';

const USAGE = `usage: retention-run [--max <erasures>] [--dry-run]

One bounded start of the retention job (docs/privacy.md, "Retention"): resumes the current run or begins
a new one, asks for at most --max erasures and stops. Progress goes to stderr, the result as JSON to stdout.

  --max N      erasures asked for in this start (default PRIVACY_RETENTION_MAX_PER_RUN)
  --dry-run    publish and write nothing: count whom a start would erase, hold and skip
  -h, --help   this text

Settings come from the evaluation service's environment. Exit 0 when the start finished or reached its
limit, 1 when another instance runs the job or on an error, 2 on wrong usage.
`;

/**
 * `retention-run`: one bounded start of the retention job on demand (docs/privacy.md, "Retention"), with
 * the evaluation service's settings (PRIVACY_RETENTION_*, MONGODB_*, KAFKA_*, TOPIC_PREFIX). It resumes
 * the current run, or begins a new one, asks for at most `--max` erasures (default
 * PRIVACY_RETENTION_MAX_PER_RUN) and stops; a later start resumes after it. `--dry-run` publishes and
 * writes nothing: it counts, from where the current run stands, whom a start would erase, hold and skip.
 * Progress goes to stderr (a log line per chunk), the result as JSON to stdout. Exit 0 when the start
 * finished or reached its limit, 1 when another instance runs the job or on an error, 2 on wrong usage.
 */
async function main(argv: string[]): Promise<number> {
  const line = parseCommandLine(argv, USAGE, {
    options: { max: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
  });
  if ('exitCode' in line) return line.exitCode;
  const dryRun = line.values['dry-run'];
  const max = line.values.max !== undefined ? Number(line.values.max) : undefined;
  if (max !== undefined && !(Number.isInteger(max) && max >= 1)) {
    return usageError(USAGE, '--max must be a whole number of erasures, 1 or more');
  }
  const config = loadEvaluationConfig();
  // Logs go to stderr so that stdout carries the result only.
  const logger = createLogger('retention-run', config.LOG_LEVEL, process.stderr);
  const { client, db, ownDb } = await connectMongo(config);
  let publisher: DurablePublisher | undefined;
  try {
    let commandsTopic = '';
    if (!dryRun) {
      // As the service and the erasure API: without encryption no key deletion can reach the plaintext.
      if (!CustomerPrivacy.fromConfig(config, ownDb('keys'), config.PRIVACY_REQUIRED).enabled) {
        console.error(
          'erasure needs encryption: set PRIVACY_KEK_FILE as the services have it (docs/privacy.md); --dry-run works without',
        );
        return 1;
      }
      const { kafka, serde, topics } = await setUpMessaging(config, 'retention-run', logger);
      commandsTopic = topics.customerCommands;
      publisher = new DurablePublisher(kafka, serde, config.KAFKA_ACK_TIMEOUT_MS);
      await publisher.connect();
    }
    const job = new RetentionJob({
      db,
      catalog: new ProjectionCatalog(db),
      ...(publisher ? { publisher } : {}),
      commandsTopic,
      logger,
      metrics: retentionMetrics(createMetricsRegistry('retention-run')),
      ...retentionSettingsOf(config),
      clock: () => new Date(),
    });
    // Ctrl-C stops after the chunk in hand; its cursor is stored and the lease released.
    process.once('SIGINT', () => void job.stop());
    process.once('SIGTERM', () => void job.stop());
    const report = await job.runOnce({
      dryRun,
      force: true,
      ...(max !== undefined ? { maxCustomers: max } : {}),
    });
    console.log(JSON.stringify(report, null, 2));
    if (report.status === 'LEASE_HELD') {
      console.error('another instance is running the retention job; try again later');
      return 1;
    }
    return report.status === 'INTERRUPTED' ? 1 : 0;
  } finally {
    await publisher?.disconnect().catch(() => undefined);
    await client.close();
  }
}

runCommand('retention-run', main);
