import { LIST_PURPOSE_HEADER, listPurposeHeader, type CustomerCommand } from '@crs/contracts';
import type { Decision } from '@crs/messaging';
import type { NewEvent } from './domain/customer-decider';

/** A customer command as the decider shell decides it: the command carries what its events' envelope needs. */
export function commandDecision(command: CustomerCommand): Decision<CustomerCommand> {
  return {
    commandId: command.commandId,
    correlationId: command.correlationId,
    streamId: command.streamId,
    businessUnit: command.businessUnit,
    command,
  };
}

/** The customer events' own envelope field: the customer they are about. */
export function customerEventFields(decision: Decision<CustomerCommand>): { customerExtId: string } {
  return { customerExtId: decision.command.customerExtId };
}

/**
 * The Kafka headers of a customer event beyond its type and stream version: a created or updated record's
 * `listPurpose` (LIST_PURPOSE_HEADER), so that the screening directory skips the records of customers
 * without one unparsed.
 */
export function customerEventHeaders(event: NewEvent): Record<string, string> | undefined {
  if (event.type !== 'CustomerCreated' && event.type !== 'CustomerUpdated') return undefined;
  return { [LIST_PURPOSE_HEADER]: listPurposeHeader(event.data.customer) };
}
