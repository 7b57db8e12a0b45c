import {
  LIST_PURPOSE_HEADER,
  listPurposeHeader,
  type CustomerCommand,
  type CustomerData,
} from '@crs/contracts';
import { decidedMessages } from './decided-history.fixtures';
import { customerRecord } from './customer-record.fixtures';

/**
 * The customer decider's Kafka headers (decision 0073): a created or updated record's listPurpose goes
 * with its event as a header, so that the screening directory can skip records without one unparsed.
 */
const NOW = '2026-01-02T03:04:05.000Z';
let seq = 0;

function importOf(customerExtId: string, overrides: Partial<CustomerData> = {}): CustomerCommand {
  seq++;
  return {
    commandId: `hdr-${seq}`,
    type: 'ImportCustomer',
    streamId: `DEMO:${customerExtId}`,
    issuedAt: NOW,
    correlationId: `HDR-${seq}`,
    businessUnit: 'DEMO',
    customerExtId,
    data: {
      channel: 'SINGLE',
      customer: customerRecord({ communicationNumber: `HDR-${seq}`, customerExtId, ...overrides }),
    },
  } as CustomerCommand;
}

describe('customer event headers', () => {
  const decided = (...commands: CustomerCommand[]) => decidedMessages(NOW, ...commands);

  it('puts the record listPurpose on created and updated records, NONE when it has none', () => {
    const out = decided(
      importOf('C-1'),
      importOf('C-2', { listPurpose: 'BLACK' }),
      importOf('C-3', { listPurpose: 'WHITE' }),
      importOf('C-2', { action: 'UPDATE', lastName: 'Changed' }),
    );
    const records = out.filter((m) => m.type === 'CustomerCreated' || m.type === 'CustomerUpdated');
    expect(records.map((m) => [m.key, m.type, m.headers?.[LIST_PURPOSE_HEADER]])).toEqual([
      ['DEMO:C-1', 'CustomerCreated', 'NONE'],
      ['DEMO:C-2', 'CustomerCreated', 'BLACK'],
      ['DEMO:C-3', 'CustomerCreated', 'WHITE'],
      ['DEMO:C-2', 'CustomerUpdated', 'NONE'],
    ]);
    // The stream version header stays on every event; other event types carry no listPurpose.
    for (const m of out)
      expect(m.headers?.streamVersion).toBe(String((m.value as { streamVersion: number }).streamVersion));
    const others = out.filter((m) => m.type !== 'CustomerCreated' && m.type !== 'CustomerUpdated');
    expect(others.length).toBeGreaterThan(0);
    for (const m of others) expect(m.headers).not.toHaveProperty(LIST_PURPOSE_HEADER);
  });

  it('passes any purpose a record carries as it is, and NONE only for none (a future value must not read as none)', () => {
    expect(listPurposeHeader({ listPurpose: 'BLACK' })).toBe('BLACK');
    expect(listPurposeHeader({ listPurpose: 'GREY' })).toBe('GREY');
    expect(listPurposeHeader({ listPurpose: null })).toBe('NONE');
    expect(listPurposeHeader({})).toBe('NONE');
    expect(listPurposeHeader(undefined)).toBe('NONE');
  });
});
