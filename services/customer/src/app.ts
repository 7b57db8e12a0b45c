import { Counter, Gauge, type Logger } from '@crs/runtime';
import type { CustomerCommand, CustomerEvent } from '@crs/contracts';
import { DeciderShell, type DecodedMessage } from '@crs/messaging';
import { ServiceHost } from '@crs/host';
import { decider } from './domain/decider';
import type { CustomerState } from './domain/customer-state';
import type { NewEvent } from './domain/customer-decider';
import { CustomerCommandRejectedError } from './domain/customer-errors';
import { commandRejected } from './domain/command-rejected';
import type { CustomerConfig } from './config';
import { commandDecision, customerEventFields, customerEventHeaders } from './command-decision';
import { readStateSnapshots } from './read-state-snapshots';
import type { StateSnapshots } from './state-snapshots';

export interface CustomerService {
  start(): Promise<void>;
  stop(): Promise<void>;
  healthPort(): number;
}

/**
 * The customer decider in the decider shell of @crs/messaging: state is folded from the customer event
 * log (never from the read models), each batch of commands is decided against it, and the resulting
 * events are appended in the same Kafka transaction that commits the command offsets; a rejected
 * command is recorded as a CustomerCommandRejected event. With STATE_SNAPSHOTS the same transaction
 * also writes the folded states it changed to a compacted snapshot topic, and a restart reads those
 * snapshots and folds only the log's tail (decision 0016).
 */
export function buildCustomerService(
  config: CustomerConfig,
  logger: Logger,
  clock: () => Date = () => new Date(),
): CustomerService {
  const host = new ServiceHost({ name: 'customer', clientId: 'customer-decider', config, logger });
  const { metrics } = host;
  const rejected = new Counter({
    name: 'commands_rejected_total',
    help: 'Commands rejected by a business rule',
    labelNames: ['code'],
    registers: [metrics],
  });
  const snapshotBacklog = new Gauge({
    name: 'state_snapshot_backlog',
    help: 'Customer states changed since their newest snapshot (written with the next decisions)',
    registers: [metrics],
    collect() {
      this.set(snapshots?.backlog() ?? 0);
    },
  });
  void snapshotBacklog;
  let snapshots: StateSnapshots | undefined;

  return {
    healthPort: () => host.healthPort(),
    start: () =>
      host.start(async () => {
        await host.serveHealth();
        const messaging = await host.connectMessaging();
        const { topics, clients, prefixed } = messaging;
        const shell = new DeciderShell<CustomerCommand, CustomerEvent, CustomerState, NewEvent>({
          ...clients,
          decider,
          eventsTopic: topics.customerEvents,
          stateGroupPrefix: prefixed('customer-decider-state'),
          transactionalIdPrefix: prefixed(config.TRANSACTIONAL_ID_PREFIX),
          inputs: [
            {
              topic: topics.customerCommands,
              groupId: prefixed(config.CONSUMER_GROUP),
              toDecision: (m: DecodedMessage<CustomerCommand>) => commandDecision(m.value),
            },
          ],
          now: () => clock().toISOString(),
          eventFields: customerEventFields,
          eventHeaders: customerEventHeaders,
          rejected: (err, decision) => {
            if (!(err instanceof CustomerCommandRejectedError)) return undefined;
            rejected.labels(err.code).inc();
            return [commandRejected(decision.command, err)];
          },
          ...(config.STATE_SNAPSHOTS
            ? {
                restore: async (states: Map<string, CustomerState>) => {
                  const restored = await readStateSnapshots(messaging, config, logger, states);
                  snapshots = restored?.store;
                  return restored;
                },
                // A partition without commands for an interval writes what its busy transactions left.
                idleSnapshotMs: config.SNAPSHOT_INTERVAL_MS,
              }
            : {}),
        });
        await host.startPart(shell, 'commands');
      }),
    stop: () => host.stop(),
  };
}
