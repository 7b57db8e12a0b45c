import { toCloudEvent, type CustomerEvent } from '@crs/contracts';
import { communicationKey } from '@crs/store';
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
 * The `_id` of an event's delivery to an endpoint: the same for the same event and endpoint, so a message
 * consumed again finds its delivery. In a delivery log keyed by communication (decision 0066) it starts
 * with the communication's key, so the delivery-log API and `redeliver` read a communication's deliveries
 * from the `_id` index; a log written before its keys keeps the older form.
 */
export function deliveryId(
  event: Pick<CustomerEvent, 'eventId' | 'correlationId'>,
  endpointId: string,
  keyed: boolean,
): string {
  const id = `${event.eventId}|${endpointId}`;
  return keyed ? communicationKey(event.correlationId) + id : id;
}

/**
 * The deliveries of consumed events, in event order: one per event and endpoint of its business unit
 * whose patterns take its CloudEvent type (none for an event without a callback). `keyed`: whether the
 * delivery log is keyed by communication (`DeliveryStore.markKeys`).
 */
export function deliveriesOf(
  events: readonly CustomerEvent[],
  routing: CallbackRouting,
  now: Date,
  keyed: boolean,
): NewDelivery[] {
  const out: NewDelivery[] = [];
  for (const event of events) {
    const ce = toCloudEvent(event, callbackData(event));
    if (!ce) continue;
    for (const endpoint of endpointsFor(routing, event.businessUnit, ce.type)) {
      out.push({
        _id: deliveryId(event, endpoint.id, keyed),
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
