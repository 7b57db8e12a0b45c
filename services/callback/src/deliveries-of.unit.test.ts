import type { CustomerEvent } from '@crs/contracts';
import { communicationKey } from '@crs/store';
import { deliveriesOf, deliveryId } from './deliveries-of';
import { parseRouting } from './domain/routing';

/**
 * The `_id` of a delivery (decision 0066): the same for the same event and endpoint, so a message consumed
 * again finds its delivery in the log; in a log keyed by communication it starts with the communication's
 * key (the delivery-log API and `redeliver` read that prefix from the `_id` index), in a log written
 * before its keys it keeps the older form.
 */
describe('delivery ids', () => {
  const routing = parseRouting(
    JSON.stringify({
      endpoints: [
        { id: 'core', businessUnit: 'BU1', url: 'https://core.example/cb' },
        { id: 'aml', businessUnit: 'BU1', url: 'https://aml.example/cb', eventTypes: ['com.crs.risk-*'] },
        { id: 'other', businessUnit: 'BU2', url: 'https://other.example/cb' },
      ],
    }),
  );
  const event = (eventId: string, correlationId: string) =>
    ({
      eventId,
      type: 'RiskAssessed',
      businessUnit: 'BU1',
      customerExtId: 'C-1',
      streamId: 'BU1:C-1',
      streamVersion: 3,
      correlationId,
      occurredAt: '2026-11-27T10:00:00.000Z',
      data: { riskLevel: 'HIGH' },
    }) as unknown as CustomerEvent;

  it('keyed: the communication key, then the event id and the endpoint; the same event gives the same ids', () => {
    const now = new Date();
    const first = deliveriesOf([event('cmd-1.0', 'COMM-7')], routing, now, true);
    expect(first.map((d) => d._id)).toEqual([
      `${communicationKey('COMM-7')}cmd-1.0|core`,
      `${communicationKey('COMM-7')}cmd-1.0|aml`,
    ]);
    expect(first.map((d) => d.communicationNumber)).toEqual(['COMM-7', 'COMM-7']);
    expect(deliveriesOf([event('cmd-1.0', 'COMM-7')], routing, new Date(0), true).map((d) => d._id)).toEqual(
      first.map((d) => d._id),
    );
    // Another communication's deliveries of the same event id (not a real case) do not share the prefix.
    expect(deliveryId({ eventId: 'cmd-1.0', correlationId: 'COMM-8' }, 'core', true)).not.toBe(first[0]!._id);
  });

  it('unkeyed (a log written before its keys): the event id and the endpoint, as before', () => {
    expect(deliveriesOf([event('cmd-1.0', 'COMM-7')], routing, new Date(), false).map((d) => d._id)).toEqual([
      'cmd-1.0|core',
      'cmd-1.0|aml',
    ]);
  });
});
