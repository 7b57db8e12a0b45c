import { randomUUID } from 'node:crypto';
import type { MongoClient } from 'mongodb';
import { CustomerPrivacy } from '@crs/privacy';
import {
  Counter,
  Gauge,
  Health,
  Histogram,
  createMetricsRegistry,
  startHealthServer,
  type HealthServer,
  type Logger,
} from '@crs/runtime';
import type { CustomerCommand, CustomerEvent, RiskLevel, RiskMatrixActivated } from '@crs/contracts';
import {
  DurablePublisher,
  StreamReader,
  TransactionalProcessor,
  setUpMessaging,
  type DecodedMessage,
  type OutgoingMessage,
} from '@crs/messaging';
import { ProjectionCatalog, connectMongo, watchMongo, type MongoWatchdog } from '@crs/store';
import { loadBundledMatrices } from '@crs/risk-engine';
import { assessRequest } from './domain/assess-request';
import { activateMatrix, matrixKey, matrixSetOf, servesCustomer, type MatrixSet } from './domain/matrix-set';
import { matrixOfActivation } from './domain/matrix-activation';
import { assessmentCommandId } from './domain/message-ids';
import { ReevaluationJobs } from './reevaluation-jobs';
import { OverrideExpiryScanner } from './override-expiry-scanner';
import { RetentionJob, retentionSettingsOf } from './retention/retention-job';
import { retentionMetrics } from './retention/retention-metrics';
import type { EvaluationConfig } from './config';

export interface EvaluationService {
  start(): Promise<void>;
  stop(): Promise<void>;
  healthPort(): number;
}

/**
 * The evaluation reactor. RiskEvaluationRequested events (which carry the whole subject) are evaluated
 * against the active matrices and answered with a RecordRiskAssessment command, in the same Kafka
 * transaction that commits the consumed offsets. The active matrices are the bundled ones plus every
 * RiskMatrixActivated on the matrix topic, read from its beginning at start and followed live; a live
 * activation starts a background re-evaluation of the customers the matrix serves. A periodic scan
 * answers expired overrides with a re-evaluation, and the retention job asks for the erasure of customers
 * past their retention period (docs/privacy.md).
 */
export function buildEvaluationService(
  config: EvaluationConfig,
  logger: Logger,
  clock: () => Date = () => new Date(),
): EvaluationService {
  const metrics = createMetricsRegistry('evaluation');
  const health = new Health();
  const duration = new Histogram({
    name: 'evaluation_duration_seconds',
    help: 'Time to select a matrix and evaluate one customer, by outcome',
    labelNames: ['outcome'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [metrics],
  });
  const assessed = new Counter({
    name: 'evaluations_total',
    help: 'Assessments recorded, by level',
    labelNames: ['level'],
    registers: [metrics],
  });
  const failures = new Counter({
    name: 'evaluation_failures_total',
    help: 'Evaluation requests answered with nothing, by reason (NO_MATRIX, ENTITY_TYPE_UNSUPPORTED, NO_CUSTOMER)',
    labelNames: ['reason'],
    registers: [metrics],
  });
  const reevaluations = new Counter({
    name: 'reevaluation_requests_total',
    help: 'RequestReevaluation commands published, by reason',
    labelNames: ['reason'],
    registers: [metrics],
  });
  const activationsRejected = new Counter({
    name: 'matrix_activations_rejected_total',
    help: 'RiskMatrixActivated messages ignored because their matrix does not validate',
    registers: [metrics],
  });
  const activeMatrices = new Gauge({
    name: 'active_matrices',
    help: 'Matrices in the active set',
    registers: [metrics],
  });
  const retentionCounters = retentionMetrics(metrics);

  let matrices: MatrixSet = matrixSetOf(loadBundledMatrices());
  activeMatrices.set(matrices.size);
  /** The latest activation per matrix key: only that one's re-evaluation job may run. */
  const latestActivation = new Map<string, RiskMatrixActivated>();
  let live = false;
  let server: HealthServer | undefined;
  let mongo: MongoClient | undefined;
  let watchdog: MongoWatchdog | undefined;
  let reader: StreamReader<RiskMatrixActivated> | undefined;
  let processor: TransactionalProcessor<CustomerEvent> | undefined;
  let publisher: DurablePublisher | undefined;
  let jobs: ReevaluationJobs | undefined;
  let scanner: OverrideExpiryScanner | undefined;
  let retention: RetentionJob | undefined;
  let commandsTopic = '';
  let privacy: CustomerPrivacy | undefined;
  const noMatrixLevel = (config.NO_MATRIX_LEVEL || undefined) as RiskLevel | undefined;

  const applyActivation = (activation: RiskMatrixActivated) => {
    const checked = matrixOfActivation(activation);
    if (!checked.ok) {
      activationsRejected.inc();
      logger.error(
        { activationId: activation.eventId, matrixId: activation.matrixId, errors: checked.errors },
        'invalid matrix activation ignored',
      );
      return;
    }
    matrices = activateMatrix(matrices, checked.matrix);
    activeMatrices.set(matrices.size);
    latestActivation.set(matrixKey(checked.matrix), activation);
    logger.info(
      {
        activationId: activation.eventId,
        matrixId: activation.matrixId,
        version: activation.version,
        businessUnit: activation.businessUnit,
        live,
      },
      'risk matrix activated',
    );
    if (live) jobs?.enqueue(activation);
  };

  const evaluateBatch = async (messages: DecodedMessage<CustomerEvent>[]): Promise<OutgoingMessage[]> => {
    const out: OutgoingMessage[] = [];
    const now = clock();
    const today = now.toISOString().slice(0, 10);
    for (const m of messages) {
      const event = m.value;
      if (event.type !== 'RiskEvaluationRequested') continue;
      const started = process.hrtime.bigint();
      // docs/privacy.md: no risk factor reads a personal field, so the record is evaluated as it arrives,
      // encrypted: this service never decrypts (and never looks a data key up).
      const data = event.data;
      const outcome = assessRequest(data, event.businessUnit, matrices, {
        today,
        ...(noMatrixLevel ? { noMatrixLevel } : {}),
      });
      duration
        .labels(outcome.kind === 'ASSESSED' ? (outcome.fallback ? 'fallback' : 'assessed') : 'failed')
        .observe(Number(process.hrtime.bigint() - started) / 1e9);
      if (outcome.kind === 'FAILED') {
        failures.labels(outcome.reason).inc();
        // Ids only: the record is personal data.
        logger.warn(
          {
            streamId: event.streamId,
            eventId: event.eventId,
            reason: outcome.reason,
            detail: outcome.message,
          },
          'customer not evaluated',
        );
        continue;
      }
      assessed.labels(outcome.assessment.level).inc();
      const command: CustomerCommand = {
        commandId: assessmentCommandId(event.eventId),
        type: 'RecordRiskAssessment',
        streamId: event.streamId,
        issuedAt: now.toISOString(),
        correlationId: event.correlationId,
        causationId: event.eventId,
        businessUnit: event.businessUnit,
        customerExtId: event.customerExtId,
        issuedBy: 'evaluation',
        data: { requestId: event.data.requestId, assessment: outcome.assessment },
      };
      out.push({ topic: commandsTopic, key: event.streamId, type: command.type, value: command });
    }
    return out;
  };

  return {
    healthPort: () => server?.port ?? 0,
    async start() {
      server = await startHealthServer({
        health,
        metrics,
        port: config.HEALTH_PORT,
        host: config.HEALTH_HOST,
      });
      const { client, db, ownDb } = await connectMongo(config, metrics);
      mongo = client;
      privacy = CustomerPrivacy.fromConfig(config, ownDb('keys'), config.PRIVACY_REQUIRED);
      watchdog = watchMongo({ client, db }, config, logger);
      const { kafka, serde, topics, prefix } = await setUpMessaging(config, 'evaluation', logger);
      commandsTopic = topics.customerCommands;
      publisher = new DurablePublisher(kafka, serde, config.KAFKA_ACK_TIMEOUT_MS);
      await publisher.connect();
      const catalog = new ProjectionCatalog(db);
      jobs = new ReevaluationJobs({
        db,
        catalog,
        publisher,
        commandsTopic,
        logger,
        published: reevaluations,
        chunkSize: config.REEVALUATION_CHUNK_SIZE,
        pauseMs: config.REEVALUATION_CHUNK_PAUSE_MS,
        leaseMs: config.REEVALUATION_LEASE_MS,
        instanceId: randomUUID(),
        clock,
        isCurrent: (a) => latestActivation.get(matrixKey(a))?.eventId === a.eventId,
        serves: (a, c) => servesCustomer(matrices, a, c),
      });

      reader = new StreamReader<RiskMatrixActivated>({
        kafka,
        serde,
        logger,
        topic: topics.riskMatrices,
        groupPrefix: `${prefix}evaluation-matrices`,
        onMessage: (m) => {
          if (m.value.type === 'RiskMatrixActivated') applyActivation(m.value);
        },
      });
      await reader.start();
      await reader.waitUntilCaughtUp();
      live = true;
      logger.info(
        { matrices: [...matrices.values()].map((m) => `${m.businessUnit}/${m.matrixId}@${m.version}`) },
        'active risk matrices',
      );
      // Activations seen while the service was down: their jobs run (or resume) now; finished ones are skipped.
      for (const activation of latestActivation.values()) jobs.enqueue(activation);

      processor = new TransactionalProcessor<CustomerEvent>({
        kafka,
        serde,
        logger,
        metrics,
        groupId: `${prefix}${config.CONSUMER_GROUP}`,
        topic: topics.customerEvents,
        transactionalIdPrefix: `${prefix}${config.TRANSACTIONAL_ID_PREFIX}`,
        // Only requests are evaluated: the other customer events are skipped unread (decision 0013).
        handler: { types: ['RiskEvaluationRequested'], process: evaluateBatch },
      });
      health.addReadinessCheck('events', () => processor?.isReady() ?? false);
      health.addReadinessCheck('mongo', () => watchdog!.ping());
      await processor.start();

      scanner = new OverrideExpiryScanner({
        db,
        catalog,
        publisher,
        commandsTopic,
        logger,
        published: reevaluations,
        periodMs: config.OVERRIDE_EXPIRY_SCAN_MS,
        chunkSize: config.REEVALUATION_CHUNK_SIZE,
        clock,
      });
      scanner.start();
      if (privacy.enabled) {
        retention = new RetentionJob({
          db,
          catalog,
          publisher,
          commandsTopic,
          logger,
          metrics: retentionCounters,
          ...retentionSettingsOf(config),
          clock,
        });
        retention.start();
      } else if (config.PRIVACY_RETENTION_SCAN_MS > 0) {
        // As the erasure API answers 503: without encryption no key deletion can reach the plaintext.
        logger.warn('retention job off: erasure needs encryption (PRIVACY_KEK_FILE)');
      }
      health.markStarted();
    },
    async stop() {
      await retention?.stop();
      await scanner?.stop();
      await jobs?.stop();
      await processor?.stop();
      await reader?.stop();
      await publisher?.disconnect().catch(() => undefined);
      await watchdog?.stop();
      await mongo?.close();
      await server?.close();
    },
  };
}
