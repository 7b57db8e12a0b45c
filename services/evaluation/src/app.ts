import { randomUUID } from 'node:crypto';
import { CustomerPrivacy } from '@crs/privacy';
import { Counter, Gauge, Histogram, type Logger } from '@crs/runtime';
import type { CustomerCommand, CustomerEvent, RiskLevel, RiskMatrixActivated } from '@crs/contracts';
import {
  DurablePublisher,
  StreamReader,
  TransactionalProcessor,
  type DecodedMessage,
  type OutgoingMessage,
} from '@crs/messaging';
import { ProjectionCatalog } from '@crs/store';
import { ServiceHost } from '@crs/host';
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
  const host = new ServiceHost({ name: 'evaluation', config, logger });
  const { metrics } = host;
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
  let jobs: ReevaluationJobs | undefined;
  let commandsTopic = '';
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
    healthPort: () => host.healthPort(),
    start: () =>
      host.start(async () => {
        await host.serveHealth();
        const { db, ownDb } = await host.connectStore();
        const privacy = CustomerPrivacy.fromConfig(config, ownDb('keys'), config.PRIVACY_REQUIRED);
        const { kafka, serde, topics, readerOptions, processorOptions } = await host.connectMessaging();
        commandsTopic = topics.customerCommands;
        const publisher = new DurablePublisher(kafka, serde, config.KAFKA_ACK_TIMEOUT_MS);
        host.onStop(() => publisher.disconnect().catch(() => undefined));
        await publisher.connect();
        const catalog = new ProjectionCatalog(db);
        const reevaluation = new ReevaluationJobs({
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
        jobs = reevaluation;

        const reader = new StreamReader<RiskMatrixActivated>({
          ...readerOptions('evaluation-matrices'),
          topic: topics.riskMatrices,
          onMessage: (m) => {
            if (m.value.type === 'RiskMatrixActivated') applyActivation(m.value);
          },
        });
        await host.startPart(reader);
        await reader.waitUntilCaughtUp();
        live = true;
        // Jobs run from here on: they stop before the matrix reader and the publisher.
        host.onStop(() => reevaluation.stop());
        logger.info(
          { matrices: [...matrices.values()].map((m) => `${m.businessUnit}/${m.matrixId}@${m.version}`) },
          'active risk matrices',
        );
        // Activations seen while the service was down: their jobs run (or resume) now; finished ones are skipped.
        for (const activation of latestActivation.values()) reevaluation.enqueue(activation);

        const processor = new TransactionalProcessor<CustomerEvent>({
          ...processorOptions(config.CONSUMER_GROUP, config.TRANSACTIONAL_ID_PREFIX),
          topic: topics.customerEvents,
          // Only requests are evaluated: the other customer events are skipped unread (decision 0013).
          handler: { types: ['RiskEvaluationRequested'], process: evaluateBatch },
        });
        await host.startPart(processor, 'events');

        await host.startPart(
          new OverrideExpiryScanner({
            db,
            catalog,
            publisher,
            commandsTopic,
            logger,
            published: reevaluations,
            periodMs: config.OVERRIDE_EXPIRY_SCAN_MS,
            chunkSize: config.REEVALUATION_CHUNK_SIZE,
            clock,
          }),
        );
        if (privacy.enabled) {
          await host.startPart(
            new RetentionJob({
              db,
              catalog,
              publisher,
              commandsTopic,
              logger,
              metrics: retentionCounters,
              ...retentionSettingsOf(config),
              clock,
            }),
          );
        } else if (config.PRIVACY_RETENTION_SCAN_MS > 0) {
          // As the erasure API answers 503: without encryption no key deletion can reach the plaintext.
          logger.warn('retention job off: erasure needs encryption (PRIVACY_KEK_FILE)');
        }
      }),
    stop: () => host.stop(),
  };
}
