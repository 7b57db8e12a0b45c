import {
  Health,
  createMetricsRegistry,
  startHealthServer,
  Counter,
  type HealthServer,
  type Logger,
} from '@crs/runtime';
import type { CustomerCommand, CustomerEvent } from '@crs/contracts';
import {
  StreamReader,
  TransactionalProcessor,
  deriveEventId,
  setUpMessaging,
  type DecodedMessage,
  type OutgoingMessage,
} from '@crs/messaging';
import { decide } from './domain/customer-decider';
import { evolve, initialState, type CustomerState } from './domain/customer-state';
import { CustomerCommandRejectedError } from './domain/customer-errors';
import type { CustomerConfig } from './config';

export interface CustomerService {
  start(): Promise<void>;
  stop(): Promise<void>;
  healthPort(): number;
}

/**
 * The customer decider's shell: state is folded from the customer event log (never from the read
 * models), each batch of commands is decided against it, and the resulting events are appended in the
 * same Kafka transaction that commits the command offsets.
 */
export function buildCustomerService(
  config: CustomerConfig,
  logger: Logger,
  clock: () => Date = () => new Date(),
): CustomerService {
  const metrics = createMetricsRegistry('customer');
  const health = new Health();
  const rejected = new Counter({
    name: 'commands_rejected_total',
    help: 'Commands rejected by a business rule',
    labelNames: ['code'],
    registers: [metrics],
  });
  const states = new Map<string, CustomerState>();
  const staged = new Map<number, Map<string, CustomerState>>();
  let reader: StreamReader<CustomerEvent> | undefined;
  let processor: TransactionalProcessor<CustomerCommand> | undefined;
  let server: HealthServer | undefined;
  let eventsTopic = '';

  const apply = (event: CustomerEvent) => {
    const current = states.get(event.streamId) ?? initialState();
    if (event.streamVersion <= current.version) return;
    states.set(event.streamId, evolve(current, event));
  };

  const decideBatch = async (
    messages: DecodedMessage<CustomerCommand>[],
    partition: number,
  ): Promise<OutgoingMessage[]> => {
    const stage = new Map<string, CustomerState>();
    staged.set(partition, stage);
    const out: OutgoingMessage[] = [];
    for (const m of messages) {
      const command = m.value;
      const state = stage.get(command.streamId) ?? states.get(command.streamId) ?? initialState();
      const now = clock().toISOString();
      let decided;
      try {
        decided = decide(command, state, { now });
      } catch (err) {
        if (!(err instanceof CustomerCommandRejectedError)) throw err;
        rejected.labels(err.code).inc();
        decided = [
          {
            type: 'CustomerCommandRejected' as const,
            data: {
              commandType: command.type,
              errorCode: err.code,
              errorDescription: err.message,
              ...(err.field ? { field: err.field } : {}),
            },
          },
        ];
      }
      let next = state;
      decided.forEach((e, i) => {
        const event = {
          eventId: deriveEventId(command.commandId, i),
          type: e.type,
          streamId: command.streamId,
          streamVersion: state.version + i + 1,
          occurredAt: now,
          correlationId: command.correlationId,
          causationId: command.commandId,
          businessUnit: command.businessUnit,
          customerExtId: command.customerExtId,
          data: e.data,
        } as CustomerEvent;
        next = evolve(next, event);
        out.push({ topic: eventsTopic, key: command.streamId, type: e.type, value: event });
      });
      stage.set(command.streamId, next);
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
      const { kafka, serde, topics, prefix } = await setUpMessaging(config, 'customer-decider', logger);
      eventsTopic = topics.customerEvents;
      reader = new StreamReader<CustomerEvent>({
        kafka,
        serde,
        logger,
        topic: topics.customerEvents,
        groupPrefix: `${prefix}customer-decider-state`,
        onMessage: (m) => apply(m.value),
      });
      await reader.start();
      let lastLogged = 0;
      await reader.waitUntilCaughtUp(undefined, (read, total) => {
        if (Date.now() - lastLogged > 2000) {
          lastLogged = Date.now();
          logger.info(
            { read: read.toString(), total: total.toString() },
            'rebuilding decider state from the event log',
          );
        }
      });
      logger.info({ customers: states.size }, 'decider state rebuilt');
      processor = new TransactionalProcessor<CustomerCommand>({
        kafka,
        serde,
        logger,
        metrics,
        groupId: `${prefix}${config.CONSUMER_GROUP}`,
        topic: topics.customerCommands,
        transactionalIdPrefix: `${prefix}${config.TRANSACTIONAL_ID_PREFIX}`,
        handler: {
          process: decideBatch,
          committed: (p) => {
            for (const [id, s] of staged.get(p) ?? []) {
              const current = states.get(id);
              if (!current || current.version < s.version) states.set(id, s);
            }
            staged.delete(p);
          },
          aborted: (p) => staged.delete(p),
          beforePartition: async (p) => reader!.waitUntilCaughtUp([p]),
        },
      });
      health.addReadinessCheck('commands', () => processor?.isReady() ?? false);
      await processor.start();
      health.markStarted();
    },
    async stop() {
      await processor?.stop();
      await reader?.stop();
      await server?.close();
    },
  };
}
