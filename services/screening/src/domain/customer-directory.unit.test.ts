import { loadMessageSchemas, type CustomerEvent } from '@crs/contracts';
import { DIRECTORY_EVENT_TYPES } from '../handlers/customer-event-projector';
import { CustomerDirectory, INTERNAL_CUSTOMERS_SOURCE } from './customer-directory';
import { customerEvent as event } from '../customer-event.fixtures';

const person = (first: string, last: string, extra: Record<string, unknown> = {}) => ({
  customer: { entityType: 'INDIVIDUAL', firstName: first, lastName: last, ...extra },
  sourceOfRiskLevel: 'IMPORT',
  channel: 'SINGLE',
});

describe('CustomerDirectory', () => {
  it('lists the customers marked BLACK as the customer-derived internal list, and drops them when marked WHITE', () => {
    const d = new CustomerDirectory();
    expect(
      d.apply(
        event(
          'CustomerCreated',
          'DEMO:A',
          person('Ann', 'Black', { listPurpose: 'BLACK', birthDate: '1980-01-01' }),
        ),
      ),
    ).toBe(true);
    expect(d.apply(event('CustomerCreated', 'DEMO:B', person('Bob', 'Plain')))).toBe(false);
    expect(d.internalEntries()).toEqual([
      {
        list: 'INTERNAL_LIST',
        source: INTERNAL_CUSTOMERS_SOURCE,
        id: 'DEMO:A',
        entityType: 'INDIVIDUAL',
        names: ['Ann Black'],
        birthDates: ['1980-01-01'],
      },
    ]);
    // As the decider records it: the imported record carries the purpose, then the purpose event.
    expect(
      d.apply(event('CustomerUpdated', 'DEMO:B', person('Bob', 'Plain', { listPurpose: 'BLACK' }))),
    ).toBe(true);
    expect(d.apply(event('InternalListPurposeRecorded', 'DEMO:B', { listPurpose: 'BLACK' }))).toBe(false);
    expect(d.apply(event('InternalListPurposeRecorded', 'DEMO:A', { listPurpose: 'WHITE' }))).toBe(true);
    expect(d.internalEntries().map((e) => e.id)).toEqual(['DEMO:B']);
    // An update without listPurpose keeps the purpose, and the entry follows the new record.
    expect(d.apply(event('CustomerUpdated', 'DEMO:B', person('Bob', 'Renamed')))).toBe(true);
    expect(d.internalEntries().map((e) => e.names)).toEqual([['Bob Renamed']]);
  });

  it('keeps nothing of customers without a list purpose, and only the screened fields of a BLACK one', () => {
    const d = new CustomerDirectory();
    for (let i = 0; i < 100; i++) d.apply(event('CustomerCreated', `DEMO:P${i}`, person('Pat', `Plain${i}`)));
    const black = person('Ann', 'Black', {
      listPurpose: 'BLACK',
      birthDate: '1980-01-01',
      citizenshipCountry: 'LT',
      listAddress: [{ addressType: 'RESIDENTIAL', city: 'Vilnius', streetAddress: 'Main 1' }],
      listContact: [{ contactType: 'EMAIL', contactDetails: 'ann@example.com' }],
    });
    d.apply(event('CustomerCreated', 'DEMO:A', black));
    expect(d.listPurposeCustomers).toBe(1);
    expect(d.listPurposeOf('DEMO:P1')).toBeUndefined();
    expect(d.listPurposeOf('DEMO:A')?.purpose).toBe('BLACK');
    expect(d.listPurposeOf('DEMO:A')?.customer).toEqual({
      entityType: 'INDIVIDUAL',
      firstName: 'Ann',
      lastName: 'Black',
      birthDate: '1980-01-01',
      citizenshipCountry: 'LT',
    });
    expect(d.internalEntries()).toEqual([
      expect.objectContaining({ id: 'DEMO:A', names: ['Ann Black'], countries: ['LT'] }),
    ]);
    expect(d.isBlack('DEMO:A')).toBe(true);
    expect(d.isBlack('DEMO:P1')).toBe(false);
  });

  it('remembers the last screened subjects, the requested lists and the last hits per list', () => {
    const d = new CustomerDirectory();
    d.apply(
      event('ScreeningRequested', 'DEMO:A', {
        requestId: 'r1',
        lists: ['SANCTIONS'],
        customer: person('Ann', 'Example').customer,
      }),
    );
    const second = event('ScreeningRequested', 'DEMO:A', {
      requestId: 'r2',
      lists: ['PEP'],
      customer: person('Ann', 'Changed').customer,
    });
    d.apply(second);
    d.apply(
      event('ScreeningCompleted', 'DEMO:A', { requestId: 'r2', list: 'PEP', matched: false, hits: [] }),
    );
    const s = d.screened.get('DEMO:A')!;
    expect(s.lists).toEqual(['SANCTIONS', 'PEP']);
    expect(s.subjects.map((x) => x.names)).toEqual([['Ann Changed']]);
    expect(s.lastHits).toEqual({ PEP: [] });
    expect(s.correlationId).toBe(second.correlationId);
  });
});

describe('CustomerDirectory: personal data erased (docs/privacy.md)', () => {
  const envelope = (type: string, streamVersion: number, data: unknown) =>
    ({
      eventId: `e-${streamVersion}`,
      type,
      streamId: 'DEMO:B-1',
      streamVersion,
      occurredAt: '2026-03-01T10:00:00.000Z',
      correlationId: 'c',
      causationId: 'x',
      businessUnit: 'DEMO',
      customerExtId: 'B-1',
      data,
    }) as CustomerEvent;

  it('stops re-screening an erased customer and takes it off the internal list', () => {
    const directory = new CustomerDirectory();
    const customer = {
      communicationNumber: 'c',
      businessUnit: 'DEMO',
      customerExtId: 'B-1',
      entityType: 'INDIVIDUAL',
      firstName: 'Blake',
      lastName: 'Listed',
      listPurpose: 'BLACK',
    };
    directory.apply(
      envelope('CustomerCreated', 1, { customer, sourceOfRiskLevel: 'IMPORT', channel: 'SINGLE' }),
    );
    directory.apply(envelope('ScreeningRequested', 2, { requestId: 'r', lists: ['SANCTIONS'], customer }));
    expect(directory.screened.has('DEMO:B-1')).toBe(true);
    expect(directory.internalEntries().length).toBe(1);
    const revision = directory.revision;
    const changed = directory.apply(
      envelope('PersonalDataErased', 3, {
        reason: 'r',
        erasedBy: 'dpo',
        override: true,
        retentionYears: 5,
        source: 'API',
        holdUntil: null,
      }),
    );
    expect(changed).toBe(true);
    expect(directory.revision).toBe(revision + 1);
    expect(directory.screened.has('DEMO:B-1')).toBe(false);
    expect(directory.isBlack('DEMO:B-1')).toBe(false);
    expect(directory.internalEntries().length).toBe(0);
  });
});

/**
 * The directory's reader decodes only DIRECTORY_EVENT_TYPES (the others are skipped by their type header
 * at every start). Skipping must change nothing the directory holds: every customer event type of
 * schemas/events that is not in the list is one `CustomerDirectory.apply` ignores.
 */
describe('the customer event types the screening directory reads', () => {
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
        expect(d.apply(event(type as CustomerEvent['type'], streamId, data))).toBe(false);
      expect(stateOf(d)).toBe(before);
    },
  );
});
