import type { CustomerCommand } from '@crs/contracts';
import type { OutgoingMessage, TopicNames } from '@crs/messaging';

export const SERVICE = 'screening';

export type ScreeningCommandType =
  | 'RecordScreeningResult'
  | 'RecordRescreeningResult'
  | 'RecordScreeningDecision';

/** What a command to the customer decider says about where it belongs and what caused it. */
export interface CommandBase {
  commandId: string;
  streamId: string;
  correlationId: string;
  causationId: string;
  businessUnit: string;
  customerExtId: string;
}

/** Builds a command to the customer decider, keyed by the customer's stream. */
export type CustomerCommandWriter = (
  type: ScreeningCommandType,
  base: CommandBase,
  data: CustomerCommand['data'],
) => OutgoingMessage;

/** `topics` is read per command: the topic names are known once messaging is set up at start. */
export function customerCommandWriter(
  topics: () => Pick<TopicNames, 'customerCommands'>,
  clock: () => Date,
): CustomerCommandWriter {
  return (type, base, data) => ({
    topic: topics().customerCommands,
    key: base.streamId,
    type,
    value: { ...base, type, issuedAt: clock().toISOString(), issuedBy: SERVICE, data },
  });
}
