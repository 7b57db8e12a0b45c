import type { CustomerCommand, CustomerEvent, CustomerData } from '@crs/contracts';
import { deciderSpec } from '@crs/testing';
import { decide, SIMPLIFIED_SCREENING_LISTS } from './customer-decider';
import { evolve, initialState } from './customer-state';
import { decidedHistory } from '../decided-history.fixtures';
import { customerRecord as record } from '../customer-record.fixtures';
import { decider } from './decider';
import {
  CustomerAlreadyExistsError,
  CustomerCommandRejectedError,
  CustomerDowngradeError,
  CustomerNotFoundError,
  CustomerNotScorableError,
  CustomerStatusTransitionError,
} from './customer-errors';
import { AllowedTransitions } from './status-lifecycle';

const NOW = '2026-01-02T03:04:05.000Z';
const spec = deciderSpec(decider, { now: NOW });
const STREAM = 'DEMO:C-1';

let seq = 0;
// The command type picks the data's type (a type parameter on the whole command would not be inferred).
type Command<T extends CustomerCommand['type']> = Extract<CustomerCommand, { type: T }>;
function cmd<T extends CustomerCommand['type']>(
  type: T,
  data: Command<T>['data'],
  correlationId = `COMM-${++seq}`,
): Command<T> {
  return {
    commandId: `cmd-${seq}-${type}`,
    type,
    streamId: STREAM,
    issuedAt: NOW,
    correlationId,
    businessUnit: 'DEMO',
    customerExtId: 'C-1',
    data,
  } as Command<T>;
}

const history = (...commands: CustomerCommand[]): CustomerEvent[] => decidedHistory(NOW, ...commands);

const importCmd = (r: Partial<CustomerData> = {}, channel: 'SINGLE' | 'BATCH' = 'SINGLE') =>
  cmd('ImportCustomer', { customer: record(r), channel });

describe('ImportCustomer', () => {
  it('CREATE with IMPORT creates the customer and records the imported level as an assessment', () => {
    const c = importCmd();
    spec
      .given([])
      .when(c)
      .then([
        {
          type: 'CustomerCreated',
          data: { customer: record(), sourceOfRiskLevel: 'IMPORT', channel: 'SINGLE', simplified: false },
        },
        { type: 'CustomerStatusChanged', data: { from: null, to: 'ACTIVE' } },
        {
          type: 'RiskAssessed',
          data: { assessment: { source: 'IMPORT', level: 'LOW' }, previousLevel: null },
        },
      ]);
  });

  it('CREATE with EVALUATE asks for an evaluation, and requested lists become a screening request', () => {
    const c = importCmd({
      sourceOfRiskLevel: 'EVALUATE',
      riskLevel: undefined,
      initializeScreeningProcesses: ['SANCTIONS', 'PEP', 'SANCTIONS'],
    });
    const events = spec.given([]).when(c).events();
    expect(events.map((e) => e.type)).toEqual([
      'CustomerCreated',
      'CustomerStatusChanged',
      'RiskEvaluationRequested',
      'ScreeningRequested',
    ]);
    expect(events[2]).toEqual({
      type: 'RiskEvaluationRequested',
      data: {
        requestId: `${c.commandId}:eval`,
        reason: 'IMPORT_EVALUATE',
        customer: c.data.customer,
        screening: {},
      },
    });
    expect(events[3]).toEqual({
      type: 'ScreeningRequested',
      data: { requestId: `${c.commandId}:screen`, lists: ['SANCTIONS', 'PEP'], customer: c.data.customer },
    });
  });

  it('records listPurpose BLACK or WHITE for the internal list', () => {
    const events = spec
      .given([])
      .when(importCmd({ listPurpose: 'BLACK' }))
      .events();
    expect(events).toContainEqual({ type: 'InternalListPurposeRecorded', data: { listPurpose: 'BLACK' } });
  });

  it('CREATE of an existing customer is rejected with C001', () => {
    spec.given(history(importCmd())).when(importCmd()).thenRejects(CustomerAlreadyExistsError, 'C001');
  });

  it('UPDATE of a missing customer is rejected with C004', () => {
    spec
      .given([])
      .when(importCmd({ action: 'UPDATE' }))
      .thenRejects(CustomerNotFoundError, 'C004');
  });

  it('UPDATE replaces the data as a whole and keeps the status when none is sent', () => {
    const given = history(importCmd({ tradingName: 'old' } as Partial<CustomerData>));
    const update = record({
      action: 'UPDATE',
      customerStatus: undefined,
      riskLevel: undefined,
      lastName: 'Changed',
    });
    const events = spec
      .given(given)
      .when(cmd('ImportCustomer', { customer: update, channel: 'SINGLE' }))
      .events();
    expect(events).toEqual([
      {
        type: 'CustomerUpdated',
        data: {
          customer: { ...update, customerStatus: 'ACTIVE' },
          sourceOfRiskLevel: 'IMPORT',
          channel: 'SINGLE',
          simplified: false,
        },
      },
    ]);
    expect((events[0]!.data as { customer: Record<string, unknown> }).customer).not.toHaveProperty(
      'tradingName',
    );
  });

  it('a repeated command with the same communicationNumber changes nothing', () => {
    const first = importCmd();
    const again = { ...first, commandId: 'another-id' } as CustomerCommand;
    spec.given(history(first)).when(again).thenNothing();
  });

  it('batch import never evaluates or screens and defaults to IMPORT', () => {
    const c = importCmd(
      { sourceOfRiskLevel: undefined, initializeScreeningProcesses: ['SANCTIONS'] },
      'BATCH',
    );
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
    expect(events).toContainEqual({
      type: 'CustomerStatusChanged',
      data: { from: 'ACTIVE', to: 'CLOSED', closingDate: '2026-01-01' },
    });
  });

  describe('status lifecycle', () => {
    const statuses = Object.keys(AllowedTransitions) as (keyof typeof AllowedTransitions)[];
    for (const from of statuses) {
      for (const to of statuses) {
        const allowed = AllowedTransitions[from].includes(to);
        it(`${from} -> ${to} is ${allowed ? 'allowed' : 'rejected with C010'}`, () => {
          const given = history(
            importCmd({ customerStatus: from, ...(from === 'CLOSED' ? { closingDate: '2025-01-01' } : {}) }),
          );
          const when = importCmd({
            action: 'UPDATE',
            customerStatus: to,
            ...(to === 'CLOSED' ? { closingDate: '2026-01-01' } : {}),
          });
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
      customer: {
        communicationNumber: 'S-1',
        businessUnit: 'DEMO',
        customerExtId: 'C-1',
        entityType: 'INDIVIDUAL',
        firstName: 'A',
        lastName: 'B',
      } as CustomerData,
    });

  it('registers a simplified customer and asks for its screening', () => {
    const c = simple();
    spec
      .given([])
      .when(c)
      .then([
        {
          type: 'CustomerCreated',
          data: {
            customer: c.data.customer,
            sourceOfRiskLevel: 'IMPORT',
            channel: 'SIMPLIFIED',
            simplified: true,
          },
        },
        {
          type: 'ScreeningRequested',
          data: {
            requestId: `${c.commandId}:screen`,
            lists: SIMPLIFIED_SCREENING_LISTS,
            customer: c.data.customer,
          },
        },
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
  const assessment = {
    source: 'EVALUATE' as const,
    level: 'MEDIUM' as const,
    score: 42,
    matrixId: 'm',
    matrixVersion: 1,
  };

  it('records the assessment the client asked for', () => {
    const c = cmd('RecordRiskAssessment', { requestId: `${evaluate.commandId}:eval`, assessment });
    spec
      .given(history(evaluate))
      .when(c)
      .then([
        {
          type: 'RiskAssessed',
          data: { requestId: `${evaluate.commandId}:eval`, assessment, previousLevel: null },
        },
      ]);
  });

  it('ignores an answer to a request that is not open (a duplicate)', () => {
    const c = cmd('RecordRiskAssessment', { requestId: `${evaluate.commandId}:eval`, assessment });
    spec.given(history(evaluate, c)).when(c).thenNothing();
    spec
      .given(history(evaluate))
      .when(cmd('RecordRiskAssessment', { requestId: 'unknown', assessment }))
      .thenNothing();
  });

  it('a re-evaluation that changes neither level nor score emits nothing', () => {
    const first = cmd('RecordRiskAssessment', { requestId: `${evaluate.commandId}:eval`, assessment });
    const re = cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' });
    const given = history(evaluate, first, re);
    spec
      .given(given)
      .when(cmd('RecordRiskAssessment', { requestId: `${re.commandId}:eval`, assessment }))
      .thenNothing();
    spec
      .given(given)
      .when(
        cmd('RecordRiskAssessment', {
          requestId: `${re.commandId}:eval`,
          assessment: { ...assessment, score: 70, level: 'HIGH' },
        }),
      )
      .thenContains([{ type: 'RiskAssessed' }]);
  });

  it('an active override wins over the computed level and says so', () => {
    const override = cmd('SetRiskOverride', {
      level: 'HIGH',
      reason: 'analyst review',
      setBy: 'officer-1',
      expiresAt: '2099-01-01T00:00:00Z',
    });
    const re = cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' });
    const events = spec
      .given(history(evaluate, override, re))
      .when(cmd('RecordRiskAssessment', { requestId: `${re.commandId}:eval`, assessment }))
      .events();
    expect(events[0]).toMatchObject({
      type: 'RiskAssessed',
      data: { assessment: { level: 'HIGH', override: { computedLevel: 'MEDIUM' } } },
    });
  });

  it('an expired override no longer applies', () => {
    const override = cmd('SetRiskOverride', {
      level: 'HIGH',
      reason: 'r',
      setBy: 'o',
      expiresAt: '2020-01-01T00:00:00Z',
    });
    const re = cmd('RequestReevaluation', { reason: 'OVERRIDE_EXPIRED' });
    const events = spec
      .given(history(evaluate, override, re))
      .when(cmd('RecordRiskAssessment', { requestId: `${re.commandId}:eval`, assessment }))
      .events();
    expect(events[0]).toMatchObject({ type: 'RiskAssessed', data: { assessment: { level: 'MEDIUM' } } });
  });
});

describe('RecordScreeningResult', () => {
  const screened = importCmd({
    sourceOfRiskLevel: 'EVALUATE',
    riskLevel: undefined,
    initializeScreeningProcesses: ['SANCTIONS'],
  });
  const hit = {
    list: 'SANCTIONS' as const,
    source: 'OFAC_SDN',
    entryId: '123',
    matchedName: 'X',
    score: 0.95,
  };
  const result = (requestId: string, hits = [hit]) =>
    cmd('RecordScreeningResult', { requestId, list: 'SANCTIONS', matched: hits.length > 0, hits });

  it('keeps the newest 20 open screening requests, as for evaluations: an answer to an older one decides nothing', () => {
    const given = history(screened);
    const requested = given.find((e) => e.type === 'ScreeningRequested')!;
    // 25 requests no answer reached (a screening service that never answered them).
    const open = Array.from({ length: 25 }, (_, i) => ({
      ...requested,
      streamVersion: given.length + i + 1,
      data: { ...requested.data, requestId: `unanswered-${i + 1}` },
    })) as CustomerEvent[];
    const state = [...given, ...open].reduce(evolve, initialState());
    expect(Object.keys(state.pendingScreenings)).toEqual(
      Array.from({ length: 20 }, (_, i) => `unanswered-${i + 6}`),
    );
    spec
      .given([...given, ...open])
      .when(result('unanswered-5'))
      .thenNothing();
    spec
      .given([...given, ...open])
      .when(result('unanswered-25', []))
      .thenContains([{ type: 'ScreeningCompleted' }]);
  });

  it('records the result of a requested list; a first match of an EVALUATE customer asks for a re-evaluation', () => {
    const events = spec
      .given(history(screened))
      .when(result(`${screened.commandId}:screen`))
      .events();
    expect(events).toEqual([
      {
        type: 'ScreeningCompleted',
        data: {
          requestId: `${screened.commandId}:screen`,
          list: 'SANCTIONS',
          matched: true,
          hits: [hit],
          changed: true,
        },
      },
      {
        type: 'RiskEvaluationRequested',
        data: expect.objectContaining({
          reason: 'SCREENING_CHANGED',
          screening: { SANCTIONS: { matched: true, hitCount: 1 } },
        }),
      },
    ]);
  });

  it('ignores a list that was not requested and a repeated answer', () => {
    const first = result(`${screened.commandId}:screen`);
    spec.given(history(screened, first)).when(first).thenNothing();
    spec
      .given(history(screened))
      .when(
        cmd('RecordScreeningResult', {
          requestId: `${screened.commandId}:screen`,
          list: 'PEP',
          matched: false,
          hits: [],
        }),
      )
      .thenNothing();
  });
});

describe('RecordRescreeningResult', () => {
  const hit = {
    list: 'SANCTIONS' as const,
    source: 'OFAC_SDN',
    entryId: '123',
    matchedName: 'X',
    score: 0.95,
    subject: 'CUSTOMER',
  };
  const rescreen = (hits: (typeof hit & { suppressed?: boolean })[], snapshotVersion = 'v2') =>
    cmd('RecordRescreeningResult', {
      list: 'SANCTIONS',
      matched: hits.some((h) => !h.suppressed),
      hits,
      snapshotVersion,
    });
  const evaluated = importCmd({
    sourceOfRiskLevel: 'EVALUATE',
    riskLevel: undefined,
    initializeScreeningProcesses: ['SANCTIONS'],
  });
  const cleanResult = cmd('RecordScreeningResult', {
    requestId: `${evaluated.commandId}:screen`,
    list: 'SANCTIONS',
    matched: false,
    hits: [],
  });

  it('a new match of a screened customer completes a screening with changed=true and asks for a re-evaluation', () => {
    const c = rescreen([hit]);
    const events = spec.given(history(evaluated, cleanResult)).when(c).events();
    expect(events).toEqual([
      {
        type: 'ScreeningCompleted',
        data: {
          requestId: `${c.commandId}:rescreen`,
          list: 'SANCTIONS',
          matched: true,
          hits: [hit],
          changed: true,
          snapshotVersion: 'v2',
        },
      },
      {
        type: 'RiskEvaluationRequested',
        data: expect.objectContaining({
          reason: 'SCREENING_CHANGED',
          screening: { SANCTIONS: { matched: true, hitCount: 1 } },
        }),
      },
    ]);
  });

  it('an unchanged hit set (also a repeated command) records nothing', () => {
    spec.given(history(evaluated, cleanResult)).when(rescreen([])).thenNothing();
    const first = rescreen([hit]);
    spec
      .given(history(evaluated, cleanResult, first))
      .when(rescreen([hit], 'v3'))
      .thenNothing();
  });

  it('an IMPORT customer gets the completed screening without an evaluation; a missing customer gets nothing', () => {
    const imported = importCmd({ initializeScreeningProcesses: ['SANCTIONS'] });
    const events = spec
      .given(history(imported))
      .when(rescreen([hit]))
      .events();
    expect(events.map((e) => e.type)).toEqual(['ScreeningCompleted']);
    spec
      .given([])
      .when(rescreen([hit]))
      .thenNothing();
  });
});

describe('SetRiskOverride and RequestReevaluation', () => {
  it('an override is an event and an assessment of source OVERRIDE', () => {
    const events = spec
      .given(history(importCmd()))
      .when(
        cmd('SetRiskOverride', {
          level: 'EXTREME',
          reason: 'sanctions confirmed manually',
          setBy: 'officer-9',
        }),
      )
      .events();
    expect(events.map((e) => e.type)).toEqual(['RiskOverrideSet', 'RiskAssessed']);
    expect(events[1]).toMatchObject({
      data: { assessment: { source: 'OVERRIDE', level: 'EXTREME' }, previousLevel: 'LOW' },
    });
  });

  it('an override of a missing customer is rejected', () => {
    spec
      .given([])
      .when(cmd('SetRiskOverride', { level: 'HIGH', reason: 'r', setBy: 'o' }))
      .thenRejects(CustomerNotFoundError);
  });

  it("re-evaluation is requested for existing EVALUATE customers only: IMPORT customers keep the client's level", () => {
    spec
      .given([])
      .when(cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' }))
      .thenNothing();
    spec
      .given(history(importCmd()))
      .when(cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' }))
      .thenNothing();
    spec
      .given(history(importCmd({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined })))
      .when(cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' }))
      .thenContains([{ type: 'RiskEvaluationRequested' }]);
  });
});

describe('evolve', () => {
  it('ignores nothing and never throws for any event of a history, and versions increase', () => {
    const events = history(
      importCmd({
        sourceOfRiskLevel: 'EVALUATE',
        riskLevel: undefined,
        initializeScreeningProcesses: ['PEP'],
      }),
    );
    const state = events.reduce(evolve, initialState());
    expect(state.version).toBe(events.length);
    expect(state.exists).toBe(true);
    expect(Object.keys(state.pendingEvaluations)).toHaveLength(1);
  });

  it('keeps the latest assessment without its explanation: the event keeps it, the state (and its snapshots) do not', () => {
    const evaluate = importCmd({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined });
    const explanation = { factors: [{ name: 'country', weight: 2, contribution: 10 }] };
    const assessed = cmd('RecordRiskAssessment', {
      requestId: `${evaluate.commandId}:eval`,
      assessment: {
        source: 'EVALUATE',
        level: 'MEDIUM',
        score: 42,
        matrixId: 'm',
        matrixVersion: 1,
        explanation,
      } as never,
    });
    const events = history(evaluate, assessed);
    expect(events.at(-1)).toMatchObject({ type: 'RiskAssessed', data: { assessment: { explanation } } });
    const state = events.reduce(evolve, initialState());
    expect(state.assessment).toEqual({
      source: 'EVALUATE',
      level: 'MEDIUM',
      score: 42,
      matrixId: 'm',
      matrixVersion: 1,
    });
    // What the decider decides on is all there: a re-evaluation with the same answer is not news.
    const re = cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' });
    spec
      .given(history(evaluate, assessed, re))
      .when(
        cmd('RecordRiskAssessment', {
          requestId: `${re.commandId}:eval`,
          assessment: assessed.data.assessment,
        }),
      )
      .thenNothing();
  });
});

/**
 * Every command the decider handles in every kind of state, one expected outcome per cell: the types of
 * the events decided, or the code of the rejection. Details of the cells are specified above and below.
 */
describe('every command in every state', () => {
  const simplifiedRecord = (communicationNumber: string) =>
    ({
      communicationNumber,
      businessUnit: 'DEMO',
      customerExtId: 'C-1',
      entityType: 'INDIVIDUAL',
      firstName: 'A',
      lastName: 'B',
    }) as CustomerData;
  const evaluateImport = () =>
    importCmd({
      sourceOfRiskLevel: 'EVALUATE',
      riskLevel: undefined,
      initializeScreeningProcesses: ['SANCTIONS'],
    });
  const states: Record<string, () => CustomerEvent[]> = {
    none: () => [],
    simplified: () => history(cmd('ImportSimplifiedCustomer', { customer: simplifiedRecord('S-0') })),
    'full IMPORT': () => history(importCmd()),
    'full EVALUATE': () => history(evaluateImport()),
    CLOSED: () => history(importCmd({ customerStatus: 'CLOSED', closingDate: '2025-12-31' })),
  };
  const hit = {
    list: 'SANCTIONS' as const,
    source: 'OFAC_SDN',
    entryId: '7',
    matchedName: 'X',
    score: 0.9,
    subject: 'CUSTOMER',
  };
  /** The request a reactor's answer refers to: the open one of the history, if any. */
  const lastRequest = (given: CustomerEvent[], type: 'RiskEvaluationRequested' | 'ScreeningRequested') =>
    (given.filter((e) => e.type === type).pop()?.data as { requestId: string } | undefined)?.requestId ??
    'no-open-request';
  const update = (r: Partial<CustomerData>) => importCmd({ action: 'UPDATE', ...r });

  const commands: Record<string, (given: CustomerEvent[]) => CustomerCommand> = {
    'ImportCustomer CREATE IMPORT': () => importCmd(),
    'ImportCustomer CREATE EVALUATE': () =>
      importCmd({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined }),
    'ImportCustomer UPDATE IMPORT': () => update({}),
    'ImportCustomer UPDATE EVALUATE': () => update({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined }),
    'ImportCustomer UPDATE EVALUATE keeping the status': () =>
      update({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined, customerStatus: undefined }),
    'ImportCustomer UPDATE to CLOSED': () => update({ customerStatus: 'CLOSED', closingDate: '2026-01-01' }),
    ImportSimplifiedCustomer: () =>
      cmd('ImportSimplifiedCustomer', { customer: simplifiedRecord(`S-${seq + 1}`) }),
    RecordRiskAssessment: (given) =>
      cmd('RecordRiskAssessment', {
        requestId: lastRequest(given, 'RiskEvaluationRequested'),
        assessment: { source: 'EVALUATE', level: 'HIGH', score: 70, matrixId: 'm', matrixVersion: 1 },
      }),
    RecordScreeningResult: (given) =>
      cmd('RecordScreeningResult', {
        requestId: lastRequest(given, 'ScreeningRequested'),
        list: 'SANCTIONS',
        matched: true,
        hits: [hit],
      }),
    RecordRescreeningResult: () =>
      cmd('RecordRescreeningResult', {
        list: 'SANCTIONS',
        matched: true,
        hits: [hit],
        snapshotVersion: 'v9',
      }),
    RecordScreeningDecision: () =>
      cmd('RecordScreeningDecision', {
        decisionId: 'd-1',
        list: 'SANCTIONS',
        source: 'OFAC_SDN',
        entryId: '7',
        subject: 'CUSTOMER',
        decision: 'FALSE_POSITIVE',
        reason: 'different person',
        decidedBy: 'analyst',
      }),
    SetRiskOverride: () => cmd('SetRiskOverride', { level: 'HIGH', reason: 'review', setBy: 'officer' }),
    'RequestReevaluation MATRIX_ACTIVATED': () => cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' }),
    'RequestReevaluation OVERRIDE_EXPIRED': () => cmd('RequestReevaluation', { reason: 'OVERRIDE_EXPIRED' }),
  };

  const created = ['CustomerCreated', 'CustomerStatusChanged'];
  const upgraded = ['CustomerUpdated', 'CustomerStatusChanged'];
  type Outcome = string[] | `C${string}`;
  // prettier-ignore
  const expected: Record<string, Record<string, Outcome>> = {
    none: {
      'ImportCustomer CREATE IMPORT': [...created, 'RiskAssessed'],
      'ImportCustomer CREATE EVALUATE': [...created, 'RiskEvaluationRequested'],
      'ImportCustomer UPDATE IMPORT': 'C004',
      'ImportCustomer UPDATE EVALUATE': 'C004',
      'ImportCustomer UPDATE EVALUATE keeping the status': 'C004',
      'ImportCustomer UPDATE to CLOSED': 'C004',
      ImportSimplifiedCustomer: ['CustomerCreated', 'ScreeningRequested'],
      RecordRiskAssessment: [],
      RecordScreeningResult: [],
      RecordRescreeningResult: [],
      RecordScreeningDecision: [],
      SetRiskOverride: 'C004',
      'RequestReevaluation MATRIX_ACTIVATED': [],
      'RequestReevaluation OVERRIDE_EXPIRED': [],
    },
    // A simplified customer is upgraded by any full import, CREATE or UPDATE; it is never scored.
    simplified: {
      'ImportCustomer CREATE IMPORT': [...upgraded, 'RiskAssessed'],
      'ImportCustomer CREATE EVALUATE': [...upgraded, 'RiskEvaluationRequested'],
      'ImportCustomer UPDATE IMPORT': [...upgraded, 'RiskAssessed'],
      'ImportCustomer UPDATE EVALUATE': [...upgraded, 'RiskEvaluationRequested'],
      'ImportCustomer UPDATE EVALUATE keeping the status': ['CustomerUpdated', 'RiskEvaluationRequested'],
      'ImportCustomer UPDATE to CLOSED': [...upgraded, 'RiskAssessed'],
      ImportSimplifiedCustomer: ['CustomerUpdated', 'ScreeningRequested'],
      RecordRiskAssessment: [],
      RecordScreeningResult: ['ScreeningCompleted'],
      RecordRescreeningResult: ['ScreeningCompleted'],
      RecordScreeningDecision: ['ScreeningHitDecided'],
      SetRiskOverride: 'C006',
      'RequestReevaluation MATRIX_ACTIVATED': [],
      'RequestReevaluation OVERRIDE_EXPIRED': [],
    },
    'full IMPORT': {
      'ImportCustomer CREATE IMPORT': 'C001',
      'ImportCustomer CREATE EVALUATE': 'C001',
      'ImportCustomer UPDATE IMPORT': ['CustomerUpdated', 'RiskAssessed'],
      'ImportCustomer UPDATE EVALUATE': ['CustomerUpdated', 'RiskEvaluationRequested'],
      'ImportCustomer UPDATE EVALUATE keeping the status': ['CustomerUpdated', 'RiskEvaluationRequested'],
      'ImportCustomer UPDATE to CLOSED': ['CustomerUpdated', 'CustomerStatusChanged', 'RiskAssessed'],
      ImportSimplifiedCustomer: 'C005',
      RecordRiskAssessment: [],
      RecordScreeningResult: [],
      RecordRescreeningResult: ['ScreeningCompleted'],
      RecordScreeningDecision: ['ScreeningHitDecided'],
      SetRiskOverride: ['RiskOverrideSet', 'RiskAssessed'],
      'RequestReevaluation MATRIX_ACTIVATED': [],
      'RequestReevaluation OVERRIDE_EXPIRED': [],
    },
    'full EVALUATE': {
      'ImportCustomer CREATE IMPORT': 'C001',
      'ImportCustomer CREATE EVALUATE': 'C001',
      'ImportCustomer UPDATE IMPORT': ['CustomerUpdated', 'RiskAssessed'],
      'ImportCustomer UPDATE EVALUATE': ['CustomerUpdated', 'RiskEvaluationRequested'],
      'ImportCustomer UPDATE EVALUATE keeping the status': ['CustomerUpdated', 'RiskEvaluationRequested'],
      'ImportCustomer UPDATE to CLOSED': ['CustomerUpdated', 'CustomerStatusChanged', 'RiskAssessed'],
      ImportSimplifiedCustomer: 'C005',
      RecordRiskAssessment: ['RiskAssessed'],
      RecordScreeningResult: ['ScreeningCompleted', 'RiskEvaluationRequested'],
      RecordRescreeningResult: ['ScreeningCompleted', 'RiskEvaluationRequested'],
      RecordScreeningDecision: ['ScreeningHitDecided'],
      SetRiskOverride: ['RiskOverrideSet', 'RiskAssessed'],
      'RequestReevaluation MATRIX_ACTIVATED': ['RiskEvaluationRequested'],
      'RequestReevaluation OVERRIDE_EXPIRED': ['RiskEvaluationRequested'],
    },
    // CLOSED is terminal; the record can still be corrected while it stays CLOSED.
    CLOSED: {
      'ImportCustomer CREATE IMPORT': 'C001',
      'ImportCustomer CREATE EVALUATE': 'C001',
      'ImportCustomer UPDATE IMPORT': 'C010',
      'ImportCustomer UPDATE EVALUATE': 'C010',
      'ImportCustomer UPDATE EVALUATE keeping the status': ['CustomerUpdated', 'RiskEvaluationRequested'],
      'ImportCustomer UPDATE to CLOSED': ['CustomerUpdated', 'RiskAssessed'],
      ImportSimplifiedCustomer: 'C005',
      RecordRiskAssessment: [],
      RecordScreeningResult: [],
      RecordRescreeningResult: ['ScreeningCompleted'],
      RecordScreeningDecision: ['ScreeningHitDecided'],
      SetRiskOverride: ['RiskOverrideSet', 'RiskAssessed'],
      'RequestReevaluation MATRIX_ACTIVATED': [],
      'RequestReevaluation OVERRIDE_EXPIRED': [],
    },
  };

  it('the table has a cell for every state and every command', () => {
    for (const state of Object.keys(states))
      expect(Object.keys(expected[state]!).sort()).toEqual(Object.keys(commands).sort());
  });

  const cells = Object.keys(states).flatMap((state) =>
    Object.keys(commands).map((command) => [state, command] as const),
  );
  describe.each(cells)('given %s, when %s', (state, command) => {
    const outcome = expected[state]![command]!;
    it(typeof outcome === 'string' ? `rejects with ${outcome}` : `decides [${outcome.join(', ')}]`, () => {
      const given = states[state]!();
      const when = commands[command]!(given);
      if (typeof outcome === 'string') {
        let caught: unknown;
        try {
          decide(when, given.reduce(evolve, initialState()), { now: NOW });
        } catch (err) {
          caught = err;
        }
        expect(caught).toBeInstanceOf(CustomerCommandRejectedError);
        expect((caught as CustomerCommandRejectedError).code).toBe(outcome);
      } else {
        expect(
          spec
            .given(given)
            .when(when)
            .events()
            .map((e) => e.type),
        ).toEqual(outcome);
      }
    });
  });

  describe('cells worth a closer look', () => {
    it('UPDATE of a simplified customer upgrades it to a full one (status from none)', () => {
      const events = spec.given(states.simplified!()).when(update({})).events();
      expect(events[0]).toMatchObject({
        type: 'CustomerUpdated',
        data: { simplified: false, channel: 'SINGLE', sourceOfRiskLevel: 'IMPORT' },
      });
      expect(events[1]).toEqual({ type: 'CustomerStatusChanged', data: { from: null, to: 'ACTIVE' } });
      expect(events[2]).toEqual({
        type: 'RiskAssessed',
        data: { assessment: { source: 'IMPORT', level: 'LOW' }, previousLevel: null },
      });
    });

    it('the upgrade of a simplified customer with EVALUATE is its first evaluation (IMPORT_EVALUATE)', () => {
      const events = spec
        .given(states.simplified!())
        .when(update({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined }))
        .events();
      expect(events[2]).toMatchObject({
        type: 'RiskEvaluationRequested',
        data: { reason: 'IMPORT_EVALUATE' },
      });
    });

    it('simplified over simplified replaces the record, stays simplified and screens again', () => {
      const c = commands.ImportSimplifiedCustomer!([]) as Extract<
        CustomerCommand,
        { type: 'ImportSimplifiedCustomer' }
      >;
      spec
        .given(states.simplified!())
        .when(c)
        .then([
          {
            type: 'CustomerUpdated',
            data: {
              customer: c.data.customer,
              sourceOfRiskLevel: 'IMPORT',
              channel: 'SIMPLIFIED',
              simplified: true,
            },
          },
          {
            type: 'ScreeningRequested',
            data: {
              requestId: `${c.commandId}:screen`,
              lists: SIMPLIFIED_SCREENING_LISTS,
              customer: c.data.customer,
            },
          },
        ]);
    });

    it('UPDATE with EVALUATE of an IMPORT customer switches it to EVALUATE and asks for a CUSTOMER_UPDATED evaluation', () => {
      const c = update({ sourceOfRiskLevel: 'EVALUATE', riskLevel: undefined });
      const events = spec.given(states['full IMPORT']!()).when(c).events();
      expect(events[0]).toMatchObject({ type: 'CustomerUpdated', data: { sourceOfRiskLevel: 'EVALUATE' } });
      expect(events[1]).toMatchObject({
        type: 'RiskEvaluationRequested',
        data: { requestId: `${c.commandId}:eval`, reason: 'CUSTOMER_UPDATED' },
      });
    });

    it('a simplified customer: its screening is recorded without any evaluation; a risk answer is ignored', () => {
      const given = states.simplified!();
      const result = commands.RecordScreeningResult!(given);
      expect(spec.given(given).when(result).events()).toEqual([
        expect.objectContaining({
          type: 'ScreeningCompleted',
          data: expect.objectContaining({ matched: true, changed: true }),
        }),
      ]);
      spec.given(given).when(commands.RecordRiskAssessment!(given)).thenNothing();
    });

    it('fixed: a late evaluation answer after the client switched the customer to IMPORT does not replace its level', () => {
      const evaluate = evaluateImport();
      const toImport = update({ riskLevel: 'LOW' });
      const late = cmd('RecordRiskAssessment', {
        requestId: `${evaluate.commandId}:eval`,
        assessment: { source: 'EVALUATE', level: 'HIGH', score: 70 },
      });
      spec.given(history(evaluate, toImport)).when(late).thenNothing();
    });

    it('fixed: when the override of an IMPORT customer expires, its level returns to the imported one (once)', () => {
      const override = cmd('SetRiskOverride', {
        level: 'EXTREME',
        reason: 'r',
        setBy: 'o',
        expiresAt: '2020-01-01T00:00:00Z',
      });
      const expired = cmd('RequestReevaluation', { reason: 'OVERRIDE_EXPIRED' });
      spec
        .given(history(importCmd({ riskLevel: 'MEDIUM' }), override))
        .when(expired)
        .then([
          {
            type: 'RiskAssessed',
            data: { assessment: { source: 'IMPORT', level: 'MEDIUM' }, previousLevel: 'EXTREME' },
          },
        ]);
      spec
        .given(history(importCmd({ riskLevel: 'MEDIUM' }), override, expired))
        .when(cmd('RequestReevaluation', { reason: 'OVERRIDE_EXPIRED' }))
        .thenNothing();
      const active = cmd('SetRiskOverride', {
        level: 'EXTREME',
        reason: 'r',
        setBy: 'o',
        expiresAt: '2099-01-01T00:00:00Z',
      });
      spec.given(history(importCmd(), active)).when(expired).thenNothing();
    });

    it('fixed: an UPDATE without customerStatus of a CLOSED customer keeps CLOSED with its closingDate', () => {
      const c = update({
        sourceOfRiskLevel: 'EVALUATE',
        riskLevel: undefined,
        customerStatus: undefined,
        lastName: 'Changed',
      });
      const events = spec.given(states.CLOSED!()).when(c).events();
      expect(events[0]).toMatchObject({
        type: 'CustomerUpdated',
        data: { customer: { lastName: 'Changed', customerStatus: 'CLOSED', closingDate: '2025-12-31' } },
      });
    });

    it('UPDATE to CLOSED of a CLOSED customer changes no status (no second CustomerStatusChanged)', () => {
      const events = spec
        .given(states.CLOSED!())
        .when(commands['ImportCustomer UPDATE to CLOSED']!([]))
        .events();
      expect(events.map((e) => e.type)).not.toContain('CustomerStatusChanged');
    });
  });
});
