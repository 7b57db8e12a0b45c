import type { CustomerCommand, CustomerEvent } from '@crs/contracts';
import { DeciderCore } from '@crs/messaging';
import { decider } from './domain/decider';
import { commandDecision, customerEventFields, customerEventHeaders } from './command-decision';

/**
 * Test fixture shared by the decider specs: the commands decided in order by the decider shell's own
 * core, so the events carry exactly the envelope the shell stores and can serve as `given` history.
 */
export function decidedHistory(now: string, ...commands: CustomerCommand[]): CustomerEvent[] {
  const core = new DeciderCore({
    decider,
    eventsTopic: 'history',
    now: () => now,
    eventFields: customerEventFields,
    eventHeaders: customerEventHeaders,
  });
  return core.decideBatch(commands.map(commandDecision), 0).map((m) => m.value as CustomerEvent);
}
