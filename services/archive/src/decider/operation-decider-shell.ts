import type { Kafka } from 'kafkajs';
import { Counter, type Logger, type Registry } from '@crs/runtime';
import {
  OperationEventTypes,
  type ArchiveOperationCommand,
  type OperationData,
  type OperationEvent,
} from '@crs/contracts';
import {
  DeciderShell,
  streamKey,
  type DecodedMessage,
  type Decision,
  type MessageSerde,
  type TopicNames,
} from '@crs/messaging';
import { decider } from '../domain/decider';
import type { NewOperationEvent, OperationInput } from '../domain/operation-decider';
import type { OperationState } from '../domain/operation-state';

export type OperationDeciderShell = DeciderShell<
  OperationInput,
  OperationEvent,
  OperationState,
  NewOperationEvent
>;

/** An upstream operation message as the shell decides it. */
export function ingestDecision(m: DecodedMessage<OperationData>, logger: Logger): Decision<OperationInput> {
  const op = m.value;
  const streamId = streamKey(op.businessUnit, op.extId);
  if (m.key !== streamId) {
    // The ordering guarantee of one operation rests on the key; a wrong key is the publisher's bug.
    logger.warn(
      { partition: m.partition, offset: m.offset, expectedKey: streamId },
      'operation published under an unexpected key',
    );
  }
  // Kafka coordinates identify an ingest message for good: a re-processed batch derives the same event ids.
  const commandId = `ingest:${m.partition}:${m.offset}`;
  return {
    commandId,
    correlationId: commandId,
    streamId,
    businessUnit: op.businessUnit,
    command: { type: 'ReceiveOperation', operation: op },
  };
}

/** An archive command as the shell decides it: the command carries what its events' envelope needs. */
export function archiveDecision(c: ArchiveOperationCommand): Decision<OperationInput> {
  return {
    commandId: c.commandId,
    correlationId: c.correlationId,
    streamId: c.streamId,
    businessUnit: c.businessUnit,
    command: c,
  };
}

/** The operation events' own envelope fields: the operation, and the customer it belongs to. */
export function operationEventFields(
  decision: Decision<OperationInput>,
  state: OperationState,
  e: NewOperationEvent,
): { operationExtId: string; customerExtId: string } {
  const input = decision.command;
  return {
    operationExtId: input.type === 'ReceiveOperation' ? input.operation.extId : input.operationExtId,
    customerExtId:
      e.type === 'OperationRegistered'
        ? e.data.operation.customerExtId
        : (state.operation?.customerExtId ?? ''),
  };
}

/**
 * The operation decider in the decider shell of @crs/messaging: state folded from the operation event
 * log; upstream operations (ingest topic) and archive commands (command topic) are decided against it
 * by two transactional processors, each appending events in the transaction that commits its input
 * offsets. The two inputs are co-partitioned with the event log (same key, same partition count), and
 * the shell serialises the decisions of both, so one running instance keeps stream versions gap-free
 * and unique.
 */
export function buildOperationDeciderShell(deps: {
  kafka: Kafka;
  serde: MessageSerde;
  logger: Logger;
  metrics: Registry;
  topics: TopicNames;
  prefix: string;
  consumerGroup: string;
  transactionalIdPrefix: string;
  clock: () => Date;
}): OperationDeciderShell {
  const { kafka, serde, logger, metrics, topics, prefix } = deps;
  const ignored = new Counter({
    name: 'operation_inputs_without_effect_total',
    help: 'Operation inputs that decided nothing, by reason',
    labelNames: ['reason'],
    registers: [metrics],
  });
  return new DeciderShell({
    kafka,
    serde,
    logger,
    metrics,
    decider,
    eventsTopic: topics.operationEvents,
    // Alerts share the topic but are not part of an operation's versioned stream.
    eventTypes: OperationEventTypes,
    stateGroupPrefix: `${prefix}operation-decider-state`,
    transactionalIdPrefix: `${prefix}${deps.transactionalIdPrefix}`,
    inputs: [
      {
        topic: topics.operationIngest,
        groupId: `${prefix}${deps.consumerGroup}-ingest`,
        // Upstream systems write the ingest topic: their payloads are checked against the schema.
        validate: true,
        toDecision: (m: DecodedMessage<OperationData>) => ingestDecision(m, logger),
      },
      {
        topic: topics.operationCommands,
        groupId: `${prefix}${deps.consumerGroup}-commands`,
        toDecision: (m: DecodedMessage<ArchiveOperationCommand>) => archiveDecision(m.value),
      },
    ],
    now: () => deps.clock().toISOString(),
    eventFields: operationEventFields,
    decidedNothing: (decision, state) => {
      const reason =
        decision.command.type === 'ReceiveOperation'
          ? 'same_content'
          : state.exists
            ? 'already_archived'
            : 'unknown_operation';
      ignored.labels(reason).inc();
      if (reason === 'unknown_operation') {
        logger.warn(
          { streamId: decision.streamId },
          'archive requested for an operation that is not registered; nothing recorded',
        );
      }
    },
  });
}
