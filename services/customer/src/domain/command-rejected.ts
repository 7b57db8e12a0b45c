import type { CustomerCommand } from '@crs/contracts/types';
import type { NewEvent } from './customer-decider';
import type { CustomerCommandRejectedError } from './customer-errors';

/** A command a business rule refused, as its stream records it (the rejection is an event too). */
export function commandRejected(command: CustomerCommand, err: CustomerCommandRejectedError): NewEvent {
  return {
    type: 'CustomerCommandRejected',
    data: {
      commandType: command.type,
      errorCode: err.code,
      errorDescription: err.message,
      ...(err.field ? { field: err.field } : {}),
    },
  };
}
