import { streamKey, type OutgoingMessage } from '@crs/messaging';
import type { CustomerCommand, CustomerCommandData, CustomerCommandType } from '@crs/contracts';

/** A customer command as a route hands it to the gateway: before it has a commandId and a time. */
export interface PendingCommand {
  type: CustomerCommandType;
  businessUnit: string;
  customerExtId: string;
  communicationNumber: string;
  data: CustomerCommandData[CustomerCommandType];
  issuedBy: string;
}

/**
 * The command of `item` as it goes to Kafka: keyed by its customer's stream, so one customer's commands
 * keep their order; its communicationNumber is the correlation id.
 */
export function commandMessage(
  topic: string,
  item: PendingCommand,
  commandId: string,
  issuedAt: string,
): OutgoingMessage {
  const streamId = streamKey(item.businessUnit, item.customerExtId);
  const command = {
    commandId,
    type: item.type,
    streamId,
    issuedAt,
    correlationId: item.communicationNumber,
    businessUnit: item.businessUnit,
    customerExtId: item.customerExtId,
    issuedBy: item.issuedBy,
    data: item.data,
  } as CustomerCommand;
  return { topic, key: streamId, type: item.type, value: command };
}
