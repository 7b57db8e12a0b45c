import type { CustomerCommand, CustomerEvent, CustomerData } from '@crs/contracts';
import { deciderSpec } from '@crs/testing';
import { decide, SIMPLIFIED_SCREENING_LISTS } from './customer-decider';
import { evolve, initialState } from './customer-state';
import {
  CustomerAlreadyExistsError,
  CustomerDowngradeError,
  CustomerNotFoundError,
  CustomerNotScorableError,
  CustomerStatusTransitionError,
} from './customer-errors';
import { AllowedTransitions } from './status-lifecycle';

const NOW = '2026-01-02T03:04:05.000Z';
const spec = deciderSpec({ initialState, evolve, decide }, { now: NOW });
const STREAM = 'DEMO:C-1';

function record(overrides: Partial<CustomerData> = {}): CustomerData {
  return {
    communicationNumber: 'COMM-1',
    businessUnit: 'DEMO',
    customerExtId: 'C-1',
    entityType: 'INDIVIDUAL',
    action: 'CREATE',
    sourceOfRiskLevel: 'IMPORT',
    riskLevel: 'LOW',
    customerStatus: 'ACTIVE',
    firstName: 'Ann',
    lastName: 'Example',
    ...overrides,
  } as CustomerData;
}

let seq = 0;
function cmd<C extends CustomerCommand>(type: C['type'], data: C['data'], correlationId = `COMM-${++seq}`): C {
  return {
    commandId: `cmd-${seq}-${type}`,
    type,
    streamId: STREAM,
    issuedAt: NOW,
    correlationId,
    businessUnit: 'DEMO',
    customerExtId: 'C-1',
    data,
  } as C;
}

/** Turn decided events into stored envelopes, as the shell does, to use them as history. */
function history(...commands: CustomerCommand[]): CustomerEvent[] {
  let state = initialState();
  const out: CustomerEvent[] = [];
  for (const c of commands) {
    decide(c, state, { now: NOW }).forEach((e, i) => {
      const ev = {
        eventId: `${c.commandId}.${i}`,
        type: e.type,
        streamId: c.streamId,
        streamVersion: state.version + 1,
        occurredAt: NOW,
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

const importCmd = (r: Partial<CustomerData> = {}, channel: 'SINGLE' | 'BATCH' = 'SINGLE') =>
  cmd('ImportCustomer', { customer: record(r), channel });

describe('ImportCustomer', () => {
  it('CREATE with IMPORT creates the customer and records the imported level as an assessment', () => {
    const c = importCmd();
    spec.given([]).when(c).then([
      { type: 'CustomerCreated', data: { customer: record(), sourceOfRiskLevel: 'IMPORT', channel: 'SINGLE', simplified: false } },
      { type: 'CustomerStatusChanged', data: { from: null, to: 'ACTIVE' } },
      { type: 'RiskAssessed', data: { assessment: { source: 'IMPORT', level: 'LOW' }, previousLevel: null } },
    ]);
  });

  it('CREATE with EVALUATE asks for an evaluation, and requested lists become a screening request', () => {
    const c = importCmd({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined, initializeScreeningProcesses: ['SANCTIONS', 'PEP', 'SANCTIONS'] });
    const events = spec.given([]).when(c).events();
    expect(events.map((e) => e.type)).toEqual(['CustomerCreated', 'CustomerStatusChanged', 'RiskEvaluationRequested', 'ScreeningRequested']);
    expect(events[2]).toEqual({
      type: 'RiskEvaluationRequested',
      data: { requestId: `${c.commandId}:eval`, reason: 'IMPORT_EVALUATE', customer: c.data.customer, screening: {} },
    });
    expect(events[3]).toEqual({
      type: 'ScreeningRequested',
      data: { requestId: `${c.commandId}:screen`, lists: ['SANCTIONS', 'PEP'], customer: c.data.customer },
    });
  });

  it('records listPurpose BLACK or WHITE for the internal list', () => {
    const events = spec.given([]).when(importCmd({ listPurpose: 'BLACK' })).events();
    expect(events).toContainEqual({ type: 'InternalListPurposeRecorded', data: { listPurpose: 'BLACK' } });
  });

  it('CREATE of an existing customer is rejected with C001', () => {
    spec.given(history(importCmd())).when(importCmd()).thenRejects(CustomerAlreadyExistsError, 'C001');
  });

  it('UPDATE of a missing customer is rejected with C004', () => {
    spec.given([]).when(importCmd({ action: 'UPDATE' })).thenRejects(CustomerNotFoundError, 'C004');
  });

  it('UPDATE replaces the data as a whole and keeps the status when none is sent', () => {
    const given = history(importCmd({ tradingName: 'old' } as Partial<CustomerData>));
    const update = record({ action: 'UPDATE', customerStatus: undefined, riskLevel: undefined, lastName: 'Changed' });
    const events = spec.given(given).when(cmd('ImportCustomer', { customer: update, channel: 'SINGLE' })).events();
    expect(events).toEqual([
      {
        type: 'CustomerUpdated',
        data: { customer: { ...update, customerStatus: 'ACTIVE' }, sourceOfRiskLevel: 'IMPORT', channel: 'SINGLE', simplified: false },
      },
    ]);
    expect((events[0]!.data as { customer: Record<string, unknown> }).customer).not.toHaveProperty('tradingName');
  });

  it('a repeated command with the same communicationNumber changes nothing', () => {
    const first = importCmd();
    const again = { ...first, commandId: 'another-id' } as CustomerCommand;
    spec.given(history(first)).when(again).thenNothing();
  });

  it('batch import never evaluates or screens and defaults to IMPORT', () => {
    const c = importCmd({ sourceOfRiskLevel: undefined, initializeScreeningProcesses: ['SANCTIONS'] }, 'BATCH');
    const events = spec.given([]).when(c).events();
    expect(events.map((e) => e.type)).toEqual(['CustomerCreated', 'CustomerStatusChanged', 'RiskAssessed']);
    expect(events[0]!.data).toMatchObject({ sourceOfRiskLevel: 'IMPORT', channel: 'BATCH' });
  });

  it('CLOSED carries its closingDate', () => {
    const given = history(importCmd());
    const events = spec
      .given(given)
      .when(importCmd({ action: 'UPDATE', customerStatus: 'CLOSED', closingDate: '2026-01-01' }))
      .events();
    expect(events).toContainEqual({ type: 'CustomerStatusChanged', data: { from: 'ACTIVE', to: 'CLOSED', closingDate: '2026-01-01' } });
  });

  describe('status lifecycle', () => {
    const statuses = Object.keys(AllowedTransitions) as (keyof typeof AllowedTransitions)[];
    for (const from of statuses) {
      for (const to of statuses) {
        const allowed = AllowedTransitions[from].includes(to);
        it(`${from} -> ${to} is ${allowed ? 'allowed' : 'rejected with C010'}`, () => {
          const given = history(importCmd({ customerStatus: from, ...(from === 'CLOSED' ? { closingDate: '2025-01-01' } : {}) }));
          const when = importCmd({ action: 'UPDATE', customerStatus: to, ...(to === 'CLOSED' ? { closingDate: '2026-01-01' } : {}) });
          if (allowed) {
            const events = spec.given(given).when(when).events();
            expect(events[0]!.type).toBe('CustomerUpdated');
            expect(events.some((e) => e.type === 'CustomerStatusChanged')).toBe(from !== to);
          } else {
            spec.given(given).when(when).thenRejects(CustomerStatusTransitionError, 'C010');
          }
        });
      }
    }
  });
});

describe('ImportSimplifiedCustomer', () => {
  const simple = () =>
    cmd('ImportSimplifiedCustomer', {
      customer: { communicationNumber: 'S-1', businessUnit: 'DEMO', customerExtId: 'C-1', entityType: 'INDIVIDUAL', firstName: 'A', lastName: 'B' } as CustomerData,
    });

  it('registers a simplified customer and asks for its screening', () => {
    const c = simple();
    spec.given([]).when(c).then([
      { type: 'CustomerCreated', data: { customer: c.data.customer, sourceOfRiskLevel: 'IMPORT', channel: 'SIMPLIFIED', simplified: true } },
      { type: 'ScreeningRequested', data: { requestId: `${c.commandId}:screen`, lists: SIMPLIFIED_SCREENING_LISTS, customer: c.data.customer } },
    ]);
  });

  it('a simplified customer can be upgraded to a full one by CREATE', () => {
    const events = spec.given(history(simple())).when(importCmd()).events();
    expect(events[0]).toMatchObject({ type: 'CustomerUpdated', data: { simplified: false } });
  });

  it('a full customer is never downgraded (C005)', () => {
    spec.given(history(importCmd())).when(simple()).thenRejects(CustomerDowngradeError, 'C005');
  });

  it('a simplified customer cannot be overridden (not scorable)', () => {
    spec
      .given(history(simple()))
      .when(cmd('SetRiskOverride', { level: 'HIGH', reason: 'r', setBy: 'officer' }))
      .thenRejects(CustomerNotScorableError, 'C006');
  });
});

describe('RecordRiskAssessment', () => {
  const evaluate = importCmd({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined });
  const assessment = { source: 'EVALUATE' as const, level: 'MEDIUM' as const, score: 42, matrixId: 'm', matrixVersion: 1 };

  it('records the assessment the client asked for', () => {
    const c = cmd('RecordRiskAssessment', { requestId: `${evaluate.commandId}:eval`, assessment });
    spec.given(history(evaluate)).when(c).then([
      { type: 'RiskAssessed', data: { requestId: `${evaluate.commandId}:eval`, assessment, previousLevel: null } },
    ]);
  });

  it('ignores an answer to a request that is not open (a duplicate)', () => {
    const c = cmd('RecordRiskAssessment', { requestId: `${evaluate.commandId}:eval`, assessment });
    spec.given(history(evaluate, c)).when(c).thenNothing();
    spec.given(history(evaluate)).when(cmd('RecordRiskAssessment', { requestId: 'unknown', assessment })).thenNothing();
  });

  it('a re-evaluation that changes neither level nor score emits nothing', () => {
    const first = cmd('RecordRiskAssessment', { requestId: `${evaluate.commandId}:eval`, assessment });
    const re = cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' });
    const given = history(evaluate, first, re);
    spec.given(given).when(cmd('RecordRiskAssessment', { requestId: `${re.commandId}:eval`, assessment })).thenNothing();
    spec
      .given(given)
      .when(cmd('RecordRiskAssessment', { requestId: `${re.commandId}:eval`, assessment: { ...assessment, score: 70, level: 'HIGH' } }))
      .thenContains([{ type: 'RiskAssessed' }]);
  });

  it('an active override wins over the computed level and says so', () => {
    const override = cmd('SetRiskOverride', { level: 'HIGH', reason: 'analyst review', setBy: 'officer-1', expiresAt: '2099-01-01T00:00:00Z' });
    const re = cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' });
    const events = spec
      .given(history(evaluate, override, re))
      .when(cmd('RecordRiskAssessment', { requestId: `${re.commandId}:eval`, assessment }))
      .events();
    expect(events[0]).toMatchObject({ type: 'RiskAssessed', data: { assessment: { level: 'HIGH', override: { computedLevel: 'MEDIUM' } } } });
  });

  it('an expired override no longer applies', () => {
    const override = cmd('SetRiskOverride', { level: 'HIGH', reason: 'r', setBy: 'o', expiresAt: '2020-01-01T00:00:00Z' });
    const re = cmd('RequestReevaluation', { reason: 'OVERRIDE_EXPIRED' });
    const events = spec
      .given(history(evaluate, override, re))
      .when(cmd('RecordRiskAssessment', { requestId: `${re.commandId}:eval`, assessment }))
      .events();
    expect(events[0]).toMatchObject({ type: 'RiskAssessed', data: { assessment: { level: 'MEDIUM' } } });
  });
});

describe('RecordScreeningResult', () => {
  const screened = importCmd({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined, initializeScreeningProcesses: ['SANCTIONS'] });
  const hit = { list: 'SANCTIONS' as const, source: 'OFAC_SDN', entryId: '123', matchedName: 'X', score: 0.95 };
  const result = (requestId: string, hits = [hit]) =>
    cmd('RecordScreeningResult', { requestId, list: 'SANCTIONS', matched: hits.length > 0, hits });

  it('records the result of a requested list; a first match of an EVALUATE customer asks for a re-evaluation', () => {
    const events = spec.given(history(screened)).when(result(`${screened.commandId}:screen`)).events();
    expect(events).toEqual([
      { type: 'ScreeningCompleted', data: { requestId: `${screened.commandId}:screen`, list: 'SANCTIONS', matched: true, hits: [hit], changed: true } },
      { type: 'RiskEvaluationRequested', data: expect.objectContaining({ reason: 'SCREENING_CHANGED', screening: { SANCTIONS: { matched: true, hitCount: 1 } } }) },
    ]);
  });

  it('ignores a list that was not requested and a repeated answer', () => {
    const first = result(`${screened.commandId}:screen`);
    spec.given(history(screened, first)).when(first).thenNothing();
    spec
      .given(history(screened))
      .when(cmd('RecordScreeningResult', { requestId: `${screened.commandId}:screen`, list: 'PEP', matched: false, hits: [] }))
      .thenNothing();
  });
});

describe('RecordRescreeningResult', () => {
  const hit = { list: 'SANCTIONS' as const, source: 'OFAC_SDN', entryId: '123', matchedName: 'X', score: 0.95, subject: 'CUSTOMER' };
  const rescreen = (hits: (typeof hit & { suppressed?: boolean })[], snapshotVersion = 'v2') =>
    cmd('RecordRescreeningResult', { list: 'SANCTIONS', matched: hits.some((h) => !h.suppressed), hits, snapshotVersion });
  const evaluated = importCmd({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined, initializeScreeningProcesses: ['SANCTIONS'] });
  const cleanResult = cmd('RecordScreeningResult', { requestId: `${evaluated.commandId}:screen`, list: 'SANCTIONS', matched: false, hits: [] });

  it('a new match of a screened customer completes a screening with changed=true and asks for a re-evaluation', () => {
    const c = rescreen([hit]);
    const events = spec.given(history(evaluated, cleanResult)).when(c).events();
    expect(events).toEqual([
      {
        type: 'ScreeningCompleted',
        data: { requestId: `${c.commandId}:rescreen`, list: 'SANCTIONS', matched: true, hits: [hit], changed: true, snapshotVersion: 'v2' },
      },
      { type: 'RiskEvaluationRequested', data: expect.objectContaining({ reason: 'SCREENING_CHANGED', screening: { SANCTIONS: { matched: true, hitCount: 1 } } }) },
    ]);
  });

  it('an unchanged hit set (also a repeated command) records nothing', () => {
    spec.given(history(evaluated, cleanResult)).when(rescreen([])).thenNothing();
    const first = rescreen([hit]);
    spec.given(history(evaluated, cleanResult, first)).when(rescreen([hit], 'v3')).thenNothing();
  });

  it('an IMPORT customer gets the completed screening without an evaluation; a missing customer gets nothing', () => {
    const imported = importCmd({ initializeScreeningProcesses: ['SANCTIONS'] });
    const events = spec.given(history(imported)).when(rescreen([hit])).events();
    expect(events.map((e) => e.type)).toEqual(['ScreeningCompleted']);
    spec.given([]).when(rescreen([hit])).thenNothing();
  });
});

describe('SetRiskOverride and RequestReevaluation', () => {
  it('an override is an event and an assessment of source OVERRIDE', () => {
    const events = spec
      .given(history(importCmd()))
      .when(cmd('SetRiskOverride', { level: 'EXTREME', reason: 'sanctions confirmed manually', setBy: 'officer-9' }))
      .events();
    expect(events.map((e) => e.type)).toEqual(['RiskOverrideSet', 'RiskAssessed']);
    expect(events[1]).toMatchObject({ data: { assessment: { source: 'OVERRIDE', level: 'EXTREME' }, previousLevel: 'LOW' } });
  });

  it('an override of a missing customer is rejected', () => {
    spec.given([]).when(cmd('SetRiskOverride', { level: 'HIGH', reason: 'r', setBy: 'o' })).thenRejects(CustomerNotFoundError);
  });

  it('re-evaluation is requested for existing full customers only', () => {
    spec.given([]).when(cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' })).thenNothing();
    spec.given(history(importCmd())).when(cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' })).thenContains([{ type: 'RiskEvaluationRequested' }]);
  });
});

describe('evolve', () => {
  it('ignores nothing and never throws for any event of a history, and versions increase', () => {
    const events = history(importCmd({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined, initializeScreeningProcesses: ['PEP'] }));
    const state = events.reduce(evolve, initialState());
    expect(state.version).toBe(events.length);
    expect(state.exists).toBe(true);
    expect(Object.keys(state.pendingEvaluations)).toHaveLength(1);
  });
});
