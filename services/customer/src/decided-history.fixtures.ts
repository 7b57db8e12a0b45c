import type { CustomerCommand, CustomerEvent } from '@crs/contracts';
import { DeciderCore, type OutgoingMessage } from '@crs/messaging';
import { decider } from './domain/decider';
import { commandDecision, customerEventFields, customerEventHeaders } from './command-decision';

/**
 * Test fixture shared by the decider specs: the commands decided in order by the decider shell's own
 * core (the options the service gives its shell), as the messages it appends (key, type, headers, event).
 */
export function decidedMessages(now: string, ...commands: CustomerCommand[]): OutgoingMessage[] {
  const core = new DeciderCore({
    decider,
    eventsTopic: 'history',
    now: () => now,
    eventFields: customerEventFields,
    eventHeaders: customerEventHeaders,
  });
  return core.decideBatch(commands.map(commandDecision), 0);
}

/** The events of `decidedMessages`: exactly the envelope the shell stores, to serve as `given` history. */
export function decidedHistory(now: string, ...commands: CustomerCommand[]): CustomerEvent[] {
  return decidedMessages(now, ...commands).map((m) => m.value as CustomerEvent);
}
