import { parseRetentionPolicy, relationshipFactsOf } from '@crs/privacy';
import { erasureCandidate, retentionCommandId, type RetentionCustomerDoc } from './erasure-candidate';

const policy = parseRetentionPolicy(5, 'LONG:10');
const NOW = '2026-06-15T12:00:00.000Z';

const doc = (fields: Partial<RetentionCustomerDoc>): RetentionCustomerDoc => ({
  _id: `${fields.businessUnit ?? 'BU1'}:${fields.customerExtId ?? 'C-1'}`,
  businessUnit: 'BU1',
  customerExtId: 'C-1',
  ...fields,
});

describe('erasureCandidate (the retention job selection rule)', () => {
  it('erases a customer closed longer ago than the period, with the rule in the reason', () => {
    expect(erasureCandidate(doc({ status: 'CLOSED', closingDate: '2020-06-01' }), policy, NOW)).toEqual({
      outcome: 'erase',
      retentionYears: 5,
      endedAt: '2020-06-01',
      holdUntil: '2025-06-01T00:00:00.000Z',
      reason: 'retention period over (5 years after 2020-06-01)',
    });
  });

  it('holds a customer whose period still runs, up to the instant it ends', () => {
    const closed = doc({ status: 'CLOSED', closingDate: '2025-01-10' });
    expect(erasureCandidate(closed, policy, NOW)).toMatchObject({
      outcome: 'held',
      holdUntil: '2030-01-10T00:00:00.000Z',
    });
    const endsNow = doc({ status: 'CLOSED', closingDate: '2021-06-15' });
    expect(erasureCandidate(endsNow, policy, '2026-06-14T23:59:59.999Z').outcome).toBe('held');
    expect(erasureCandidate(endsNow, policy, '2026-06-15T00:00:00.000Z').outcome).toBe('erase');
  });

  it('takes the period of the business unit', () => {
    const longBu = doc({ businessUnit: 'LONG', status: 'CLOSED', closingDate: '2020-06-01' });
    expect(erasureCandidate(longBu, policy, NOW)).toMatchObject({ outcome: 'held', retentionYears: 10 });
  });

  it('reads the end of the relationship as the erasure API does', () => {
    // CLOSED without closingDate: the status change; REJECTED: the status change, else the last update.
    expect(
      erasureCandidate(doc({ status: 'CLOSED', statusChangedAt: '2019-03-01T10:00:00.000Z' }), policy, NOW),
    ).toMatchObject({ outcome: 'erase', endedAt: '2019-03-01T10:00:00.000Z' });
    expect(
      erasureCandidate(doc({ status: 'REJECTED', updatedAt: '2018-01-01T00:00:00.000Z' }), policy, NOW),
    ).toMatchObject({ outcome: 'erase', endedAt: '2018-01-01T00:00:00.000Z' });
    // An occasional customer has no status: its last update ends it.
    expect(
      erasureCandidate(
        doc({ simplified: true, status: null, updatedAt: '2024-01-01T00:00:00.000Z' }),
        policy,
        NOW,
      ),
    ).toMatchObject({ outcome: 'held', holdUntil: '2029-01-01T00:00:00.000Z' });
    expect(
      relationshipFactsOf({
        status: 'CLOSED',
        closingDate: '2020-01-01',
        statusChangedAt: '2021-01-01T00:00:00Z',
      }),
    ).toEqual({ status: 'CLOSED', endedAt: '2020-01-01', simplified: false });
  });

  it('skips open relationships and customers already erased', () => {
    expect(
      erasureCandidate(doc({ status: 'ACTIVE', updatedAt: '2001-01-01T00:00:00Z' }), policy, NOW),
    ).toEqual({
      outcome: 'skipped',
      why: 'OPEN',
    });
    expect(erasureCandidate(doc({}), policy, NOW)).toEqual({ outcome: 'skipped', why: 'OPEN' });
    expect(
      erasureCandidate(
        doc({ status: 'CLOSED', closingDate: '2001-01-01', personalDataErased: true }),
        policy,
        NOW,
      ),
    ).toEqual({ outcome: 'skipped', why: 'ERASED' });
  });

  it('never erases an ended relationship whose end is missing or not a date', () => {
    expect(erasureCandidate(doc({ status: 'CLOSED' }), policy, NOW)).toEqual({
      outcome: 'held',
      retentionYears: 5,
      endedAt: null,
      holdUntil: null,
    });
    expect(erasureCandidate(doc({ status: 'CLOSED', closingDate: 'yesterday' }), policy, NOW)).toMatchObject({
      outcome: 'held',
      holdUntil: null,
    });
  });

  it('gives a customer the same command id within a run and another in the next run', () => {
    expect(retentionCommandId('R1', 'BU1:C-1')).toBe(retentionCommandId('R1', 'BU1:C-1'));
    expect(retentionCommandId('R1', 'BU1:C-1')).not.toBe(retentionCommandId('R2', 'BU1:C-1'));
    expect(retentionCommandId('R1', 'BU1:C-1')).not.toBe(retentionCommandId('R1', 'BU1:C-2'));
  });
});
