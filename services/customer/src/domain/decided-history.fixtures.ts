import type { CustomerCommand, CustomerEvent } from '@crs/contracts';
import { decide } from './customer-decider';
import { evolve, initialState } from './customer-state';

/**
 * Test fixture shared by the decider specs: decides the commands in order and wraps each decided
 * event in the envelope the shell stores (id from command id and position, next stream version), so
 * the result can serve as `given` history.
 */
export function decidedHistory(now: string, ...commands: CustomerCommand[]): CustomerEvent[] {
  let state = initialState();
  const out: CustomerEvent[] = [];
  for (const c of commands) {
    decide(c, state, { now }).forEach((e, i) => {
      const ev = {
        eventId: `${c.commandId}.${i}`,
        type: e.type,
        streamId: c.streamId,
        streamVersion: state.version + 1,
        occurredAt: now,
        correlationId: c.correlationId,
        causationId: c.commandId,
        businessUnit: c.businessUnit,
        customerExtId: c.customerExtId,
        data: e.data,
      } as CustomerEvent;
      state = evolve(state, ev);
      out.push(ev);
    });
  }
  return out;
}
