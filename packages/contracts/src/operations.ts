import type { OperationEventTypes, GeneratedOperationEvent } from './generated/messages';
import type { ArchiveOperationCommand } from './generated/operations/archive-operation.v1';
import type { OperationReceived } from './generated/operations/operation-received.v1';
import type { RetroMonitoringAlertRaised } from './generated/operations/retro-monitoring-alert-raised.v1';

/**
 * The operation (payment) catalogue. The shapes themselves are generated from schemas/operations;
 * this file only groups them the way the operation decider and its readers use them. The list of the
 * stream's event types, `OperationEventTypes`, is generated (generated/messages.ts).
 */
export type OperationEventType = (typeof OperationEventTypes)[number];

/** The operation decider's stream: versioned events of one `<businessUnit>:<operationExtId>`. */
export type OperationEvent = GeneratedOperationEvent;

/** Everything on the operation events topic: the decider's stream plus alerts (unversioned). */
export type OperationTopicEvent = OperationEvent | RetroMonitoringAlertRaised;

export type OperationCommand = ArchiveOperationCommand;

/** The operation as upstream systems publish it (and as OperationRegistered records it). */
export type OperationData = OperationReceived;
export type OperationType = OperationReceived['type'];
