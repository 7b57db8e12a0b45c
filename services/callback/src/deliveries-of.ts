import { toCloudEvent, type CustomerEvent } from '@crs/contracts';
import type { NewDelivery } from './delivery-store';
import { endpointsFor, type CallbackRouting } from './domain/routing';

/** What a callback carries: the event's data, without the customer record itself. */
export function callbackData(event: CustomerEvent): Record<string, unknown> {
  switch (event.type) {
    case 'CustomerCreated':
    case 'CustomerUpdated': {
      const c = event.data.customer;
      return {
        change: event.type === 'CustomerCreated' ? 'CREATED' : 'UPDATED',
        customerStatus: c.customerStatus ?? null,
        simplified: event.data.simplified === true,
        flags: {
          sanctioned: c.isSanctioned ?? null,
          pep: c.isPEP ?? null,
          inAdverseMedia: c.isInAdverseMedia ?? null,
          inInternalList: c.isInInternalList ?? null,
        },
        updatedAt: event.occurredAt,
      };
    }
    default:
      return event.data;
  }
}

/**
 * The deliveries of consumed events, in event order: one per event and endpoint of its business unit
 * whose patterns take its CloudEvent type (none for an event without a callback).
 */
export function deliveriesOf(
  events: readonly CustomerEvent[],
  routing: CallbackRouting,
  now: Date,
): NewDelivery[] {
  const out: NewDelivery[] = [];
  for (const event of events) {
    const ce = toCloudEvent(event, callbackData(event));
    if (!ce) continue;
    for (const endpoint of endpointsFor(routing, event.businessUnit, ce.type)) {
      out.push({
        _id: `${event.eventId}|${endpoint.id}`,
        eventId: event.eventId,
        endpointId: endpoint.id,
        url: endpoint.url,
        businessUnit: event.businessUnit,
        communicationNumber: event.correlationId,
        customerExtId: event.customerExtId,
        streamId: event.streamId,
        streamVersion: event.streamVersion,
        cloudEvent: ce,
        nextAttemptAt: now,
      });
    }
  }
  return out;
}
