import type { CustomerEvent } from '@crs/contracts';

let version = 0;

/**
 * Test fixture shared by the directory specs: a customer event of `type` for `streamId`
 * (`<businessUnit>:<customerExtId>`) with the envelope a decider writes, each with the next event id and version.
 */
export function customerEvent(
  type: CustomerEvent['type'],
  streamId: string,
  data: Record<string, unknown>,
): CustomerEvent {
  const [businessUnit, customerExtId] = streamId.split(':') as [string, string];
  version++;
  return {
    eventId: `e${version}`,
    type,
    streamId,
    streamVersion: version,
    occurredAt: '2026-01-01T00:00:00Z',
    correlationId: `comm-${version}`,
    causationId: 'c',
    businessUnit,
    customerExtId,
    data,
  } as CustomerEvent;
}
