import type { CustomerCommand } from '@crs/contracts';
import type { Decision } from '@crs/messaging';

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
