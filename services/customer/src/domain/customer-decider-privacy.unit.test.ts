import type { CustomerCommand, CustomerData, CustomerEvent } from '@crs/contracts';
import { deciderSpec } from '@crs/testing';
import { decide, personalDataErased } from './customer-decider';
import { evolve, initialState } from './customer-state';
import { decidedHistory } from '../decided-history.fixtures';
import { decider } from './decider';
import { CustomerNotFoundError, PersonalDataKeyErasedError, RetentionHoldError } from './customer-errors';

/** docs/privacy.md: the erasure of personal data as the customer decider records it. */
const NOW = '2026-01-02T03:04:05.000Z';
const spec = deciderSpec(decider, { now: NOW });
const STREAM = 'DEMO:C-9';
/** An encrypted value of key generation `keyId` (the format of @crs/privacy; the decider only reads the id). */
const enc = (keyId: string) => `crs:enc:1:${keyId}:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA:AAAA`;

function record(overrides: Partial<CustomerData> = {}, keyId = 'k1'): CustomerData {
  return {
    communicationNumber: 'COMM-1',
    businessUnit: 'DEMO',
    customerExtId: 'C-9',
    entityType: 'INDIVIDUAL',
    action: 'CREATE',
    sourceOfRiskLevel: 'IMPORT',
    riskLevel: 'LOW',
    customerStatus: 'ACTIVE',
    // Sealed, as the ingress publishes it (decision 0054): the key generation is that of the sealed value.
    firstName: 'crs:sealed:0',
    lastName: 'crs:sealed:0',
    sealedPersonalData: enc(keyId),
    ...overrides,
  } as CustomerData;
}

let seq = 0;
function cmd<C extends CustomerCommand>(type: C['type'], data: C['data']): C {
  seq += 1;
  return {
    commandId: `cmd-${seq}`,
    type,
    streamId: STREAM,
    issuedAt: NOW,
    correlationId: `COMM-${seq}`,
    businessUnit: 'DEMO',
    customerExtId: 'C-9',
    data,
  } as C;
}

const importCmd = (r: Partial<CustomerData> = {}, keyId = 'k1') =>
  cmd('ImportCustomer', { customer: record(r, keyId), channel: 'SINGLE' });
const eraseCmd = (override = false, retentionYears = 5) =>
  cmd('ErasePersonalData', { reason: 'DSR 42', requestedBy: 'dpo', override, retentionYears, source: 'API' });
const history = (...commands: CustomerCommand[]): CustomerEvent[] => decidedHistory(NOW, ...commands);
const closed = (closingDate: string) =>
  importCmd({ action: 'UPDATE', customerStatus: 'CLOSED', closingDate });

describe('ErasePersonalData', () => {
  it('is refused while the relationship is open (RETENTION_HOLD), without an end date', () => {
    spec.given(history(importCmd())).when(eraseCmd()).thenRejects(RetentionHoldError, 'RETENTION_HOLD');
    let message = '';
    try {
      decide(eraseCmd(), spec.given(history(importCmd())).state, { now: NOW });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/relationship is open/);
  });

  it('is refused until the retention period after closingDate is over, naming the date the hold ends', () => {
    const given = history(importCmd(), closed('2022-06-30'));
    let caught: unknown;
    try {
      decide(eraseCmd(false, 5), spec.given(given).state, { now: NOW });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RetentionHoldError);
    expect((caught as Error).message).toContain('2027-06-30');
  });

  it('records who, why and which key once the period is over', () => {
    spec
      .given(history(importCmd(), closed('2020-06-30')))
      .when(eraseCmd(false, 5))
      .then([
        {
          type: 'PersonalDataErased',
          data: {
            reason: 'DSR 42',
            erasedBy: 'dpo',
            override: false,
            retentionYears: 5,
            source: 'API',
            keyId: 'k1',
            relationshipEndedAt: '2020-06-30',
            holdUntil: null,
          },
        },
      ]);
  });

  it('a per-business-unit period of 10 years holds a customer that 5 years would release', () => {
    spec
      .given(history(importCmd(), closed('2020-06-30')))
      .when(eraseCmd(false, 10))
      .thenRejects(RetentionHoldError, 'RETENTION_HOLD');
  });

  it('goes ahead under a hold with the override, and records that it was one', () => {
    spec
      .given(history(importCmd()))
      .when(eraseCmd(true))
      .thenContains([
        { type: 'PersonalDataErased', data: expect.objectContaining({ override: true, holdUntil: null }) },
      ]);
  });

  it('an override without a hold is not recorded as an override', () => {
    spec
      .given(history(importCmd(), closed('2019-01-01')))
      .when(eraseCmd(true))
      .thenContains([{ type: 'PersonalDataErased', data: expect.objectContaining({ override: false }) }]);
  });

  it('REJECTED ends the relationship on the day of the rejection', () => {
    const pending = importCmd({ customerStatus: 'PENDING' });
    const rejected = importCmd({ action: 'UPDATE', customerStatus: 'REJECTED' });
    const state = spec.given(history(pending, rejected)).state;
    expect(state.endedAt).toBe(NOW);
    spec
      .given(history(pending, rejected))
      .when(eraseCmd(false, 0))
      .thenContains([{ type: 'PersonalDataErased' }]);
  });

  it('is idempotent: an erasure already made decides nothing', () => {
    spec
      .given(history(importCmd(), eraseCmd(true)))
      .when(eraseCmd(true))
      .thenNothing();
  });

  it('needs an existing customer', () => {
    spec.given([]).when(eraseCmd(true)).thenRejects(CustomerNotFoundError, 'C004');
  });

  it('an erased customer is re-evaluated and re-screened no more', () => {
    const given = history(importCmd({ sourceOfRiskLevel: 'EVALUATE' }), eraseCmd(true));
    expect(personalDataErased(spec.given(given).state)).toBe(true);
    spec
      .given(given)
      .when(cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' }))
      .thenNothing();
    spec
      .given(given)
      .when(
        cmd('RecordRescreeningResult', {
          list: 'SANCTIONS',
          matched: true,
          hits: [{ list: 'SANCTIONS', source: 'OFAC', entryId: '1', matchedName: enc('k1'), score: 1 }],
          snapshotVersion: 'v2',
        }),
      )
      .thenNothing();
  });

  it('refuses a record encrypted with the erased key (a cached key), and accepts one under a new key', () => {
    const given = history(importCmd(), eraseCmd(true));
    spec
      .given(given)
      .when(importCmd({ action: 'UPDATE' }, 'k1'))
      .thenRejects(PersonalDataKeyErasedError, 'PERSONAL_DATA_KEY_ERASED');
    const fresh = spec
      .given(given)
      .when(importCmd({ action: 'UPDATE' }, 'k2'))
      .events();
    expect(fresh[0]).toMatchObject({ type: 'CustomerUpdated' });
    const after = history(importCmd(), eraseCmd(true), importCmd({ action: 'UPDATE' }, 'k2'));
    expect(personalDataErased(spec.given(after).state)).toBe(false);
  });

  it('replaying the log rebuilds the same erased state', () => {
    const events = history(importCmd(), closed('2019-01-01'), eraseCmd());
    const once = events.reduce(evolve, initialState());
    const twice = [...events, ...events].reduce(evolve, initialState());
    expect(personalDataErased(once)).toBe(true);
    expect(twice).toEqual(once);
  });
});
