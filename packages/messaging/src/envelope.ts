import { randomUUID } from 'node:crypto';

// The envelope types themselves are contracts: see EventEnvelope / CommandEnvelope in @crs/contracts.

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
