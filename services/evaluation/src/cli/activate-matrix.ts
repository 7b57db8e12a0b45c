import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import {
  commonConfigSpec,
  createLogger,
  loadConfig,
  num,
  parseCommandLine,
  runCommand,
  usageError,
} from '@crs/runtime';
import { DurablePublisher, setUpMessaging } from '@crs/messaging';
import { validateMatrix } from '@crs/risk-engine';
import { activationOf } from '../domain/matrix-activation';

const USAGE = `usage: activate-matrix <matrix.json> [--by <who>]

Validates a risk matrix (schema and semantic rules) and publishes it as RiskMatrixActivated: every
running evaluation service switches to it and re-evaluates the customers it serves (docs/risk-matrix.md).

  --by WHO     who activates it (default $USER), recorded in the activation
  -h, --help   this text

Settings come from the environment (KAFKA_*, TOPIC_PREFIX, SCHEMA_REGISTRY_*). Exit 0 when published, 1
when the matrix is invalid or the broker did not acknowledge, 2 on wrong usage.
`;

/**
 * `activate-matrix <file>`: validates a risk matrix (schema and semantic rules) and publishes it as
 * RiskMatrixActivated on the matrix topic of TOPIC_PREFIX. Every running evaluation service switches to
 * it and re-evaluates the customers it serves. Prints the activation as JSON; exit 1 when the matrix is
 * invalid or the broker did not acknowledge, 2 on wrong usage.
 */
async function main(argv: string[]): Promise<number> {
  const line = parseCommandLine(argv, USAGE, { options: { by: { type: 'string' } }, allowPositionals: true });
  if ('exitCode' in line) return line.exitCode;
  const [file, ...extra] = line.positionals;
  const by = line.values.by ?? process.env.USER;
  if (!file || extra.length > 0) {
    return usageError(USAGE, 'one matrix file is needed');
  }
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`cannot read ${file}: ${(err as Error).message}`);
    return 1;
  }
  const checked = validateMatrix(doc);
  if (!checked.ok) {
    console.error(JSON.stringify({ valid: false, file, errors: checked.errors }, null, 2));
    return 1;
  }
  const config = loadConfig({ ...commonConfigSpec, KAFKA_ACK_TIMEOUT_MS: num({ default: 10000 }) });
  // Logs go to stderr so that stdout carries the result only.
  const logger = createLogger(
    'activate-matrix',
    config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL,
    process.stderr,
  );
  const { kafka, serde, topics } = await setUpMessaging(config, 'activate-matrix', logger);
  const activation = activationOf(checked.matrix, {
    eventId: randomUUID(),
    activatedAt: new Date().toISOString(),
    ...(by ? { activatedBy: by } : {}),
  });
  const publisher = new DurablePublisher(kafka, serde, config.KAFKA_ACK_TIMEOUT_MS);
  try {
    await publisher.publish([
      { topic: topics.riskMatrices, key: activation.matrixId, type: activation.type, value: activation },
    ]);
  } finally {
    await publisher.disconnect().catch(() => undefined);
  }
  const { matrix: _matrix, ...summary } = activation;
  console.log(JSON.stringify({ activated: true, topic: topics.riskMatrices, ...summary }, null, 2));
  return 0;
}

runCommand('activate-matrix', main);
