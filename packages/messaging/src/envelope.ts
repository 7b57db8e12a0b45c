import { randomUUID } from 'node:crypto';

/** What every event on a Kafka topic carries besides its data (see schemas/events). */
export interface EventEnvelope<T extends string = string, D = unknown> {
  eventId: string;
  type: T;
  streamId: string;
  streamVersion: number;
  occurredAt: string;
  correlationId: string;
  causationId: string;
  businessUnit: string;
  customerExtId: string;
  data: D;
}

/** What every command carries (see schemas/commands). */
export interface CommandEnvelope<T extends string = string, D = unknown> {
  commandId: string;
  type: T;
  streamId: string;
  issuedAt: string;
  correlationId: string;
  causationId?: string;
  businessUnit: string;
  customerExtId: string;
  issuedBy?: string;
  data: D;
}

/**
 * Event ids are derived from the command id and the event's position in the decision, so a decision
 * replayed after a crash yields the same ids (and receivers de-duplicate on them).
 */
export function deriveEventId(commandId: string, index: number): string {
  return `${commandId}.${index}`;
}

export function newId(): string {
  return randomUUID();
}
