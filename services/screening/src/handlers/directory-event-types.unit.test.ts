import { loadMessageSchemas, type CustomerEvent } from '@crs/contracts';
import { CustomerDirectory } from '../domain/customer-directory';
import { DIRECTORY_EVENT_TYPES } from './customer-event-projector';

/**
 * The directory's reader decodes only DIRECTORY_EVENT_TYPES (the others are skipped by their type header
 * at every start). Skipping must change nothing the directory holds: every customer event type of
 * schemas/events that is not in the list is one `CustomerDirectory.apply` ignores.
 */
describe('the customer event types the screening directory reads', () => {
  let v = 0;
  const event = (type: string, streamId: string, data: Record<string, unknown>): CustomerEvent =>
    ({
      eventId: `e${++v}`,
      type,
      streamId,
      streamVersion: v,
      occurredAt: '2026-01-01T00:00:00Z',
      correlationId: `comm-${v}`,
      causationId: 'c',
      businessUnit: 'DEMO',
      customerExtId: streamId.split(':')[1],
      data,
    }) as unknown as CustomerEvent;
  const record = (listPurpose: string) => ({
    entityType: 'INDIVIDUAL',
    firstName: 'Ann',
    lastName: `Other${listPurpose}`,
    listPurpose,
  });
  const stateOf = (d: CustomerDirectory) =>
    JSON.stringify({
      screened: [...d.screened],
      black: d.listPurposeOf('DEMO:B'),
      white: d.listPurposeOf('DEMO:W'),
      size: d.listPurposeCustomers,
      revision: d.revision,
      internal: d.internalEntries(),
    });
  const customerEventTypes = loadMessageSchemas()
    .filter((s) => s.kind === 'events')
    .map((s) => s.type);

  it('lists only customer event types, each once', () => {
    expect(customerEventTypes.length).toBeGreaterThan(DIRECTORY_EVENT_TYPES.length);
    expect(customerEventTypes).toEqual(expect.arrayContaining([...DIRECTORY_EVENT_TYPES]));
    expect(new Set(DIRECTORY_EVENT_TYPES).size).toBe(DIRECTORY_EVENT_TYPES.length);
  });

  it.each(customerEventTypes.filter((t) => !DIRECTORY_EVENT_TYPES.includes(t as CustomerEvent['type'])))(
    'skipping %s changes nothing the directory holds',
    (type) => {
      const d = new CustomerDirectory();
      d.apply(event('CustomerCreated', 'DEMO:B', { customer: record('BLACK'), channel: 'SINGLE' }));
      d.apply(event('CustomerCreated', 'DEMO:W', { customer: record('WHITE'), channel: 'SINGLE' }));
      d.apply(
        event('ScreeningRequested', 'DEMO:W', { customer: record('WHITE'), lists: ['SANCTIONS', 'PEP'] }),
      );
      d.apply(event('ScreeningCompleted', 'DEMO:W', { list: 'SANCTIONS', hits: [] }));
      const before = stateOf(d);
      // Data that would move the directory if the type were folded: a record, a purpose, lists, hits.
      const data = {
        customer: record('WHITE'),
        listPurpose: 'WHITE',
        lists: ['ADVERSE_MEDIA'],
        list: 'PEP',
        hits: [{ entryId: 'X', score: 1 }],
      };
      for (const streamId of ['DEMO:B', 'DEMO:W', 'DEMO:NEW'])
        expect(d.apply(event(type, streamId, data))).toBe(false);
      expect(stateOf(d)).toBe(before);
    },
  );
});
