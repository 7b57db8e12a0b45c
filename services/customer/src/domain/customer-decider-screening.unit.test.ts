import type { CustomerCommand, CustomerEvent, CustomerData, ScreeningHitData } from '@crs/contracts';
import { deciderSpec } from '@crs/testing';
import { decidedHistory } from '../decided-history.fixtures';
import { decider } from './decider';

/**
 * How screening results reach the risk evaluation: which results ask for a re-evaluation (and with what
 * screening summary), and the reason an UPDATE with EVALUATE records.
 */
const NOW = '2026-01-02T03:04:05.000Z';
const spec = deciderSpec(decider, { now: NOW });
const STREAM = 'DEMO:C-9';

function record(overrides: Partial<CustomerData> = {}): CustomerData {
  return {
    communicationNumber: 'COMM-1',
    businessUnit: 'DEMO',
    customerExtId: 'C-9',
    entityType: 'INDIVIDUAL',
    action: 'CREATE',
    sourceOfRiskLevel: 'EVALUATE',
    customerStatus: 'ACTIVE',
    firstName: 'Ann',
    lastName: 'Example',
    initializeScreeningProcesses: ['SANCTIONS'],
    ...overrides,
  } as CustomerData;
}

let seq = 0;
// The command type picks the data's type (a type parameter on the whole command would not be inferred).
type Command<T extends CustomerCommand['type']> = Extract<CustomerCommand, { type: T }>;
function cmd<T extends CustomerCommand['type']>(
  type: T,
  data: Command<T>['data'],
  correlationId = `SCR-${++seq}`,
): Command<T> {
  return {
    commandId: `scr-${seq}-${type}`,
    type,
    streamId: STREAM,
    issuedAt: NOW,
    correlationId,
    businessUnit: 'DEMO',
    customerExtId: 'C-9',
    data,
  } as Command<T>;
}

const history = (...commands: CustomerCommand[]): CustomerEvent[] => decidedHistory(NOW, ...commands);

const hit: ScreeningHitData = {
  list: 'SANCTIONS',
  source: 'OFAC_SDN',
  entryId: '123',
  matchedName: 'X',
  score: 0.95,
  subject: 'CUSTOMER',
};
const otherHit: ScreeningHitData = { ...hit, entryId: '456' };
const importCmd = (r: Partial<CustomerData> = {}) =>
  cmd('ImportCustomer', { customer: record(r), channel: 'SINGLE' });
const screen = (requestId: string, hits: ScreeningHitData[], list: 'SANCTIONS' | 'PEP' = 'SANCTIONS') =>
  cmd('RecordScreeningResult', { requestId, list, matched: hits.some((h) => !h.suppressed), hits });
const types = (events: { type: string }[]) => events.map((e) => e.type);

describe('RecordScreeningResult asks for a re-evaluation', () => {
  it('on the first result that matches, with the match in the evaluation subject', () => {
    const imported = importCmd();
    const c = screen(`${imported.commandId}:screen`, [hit]);
    const events = spec.given(history(imported)).when(c).events();
    expect(events[1]).toEqual({
      type: 'RiskEvaluationRequested',
      data: {
        requestId: `${c.commandId}:eval`,
        reason: 'SCREENING_CHANGED',
        customer: imported.data.customer,
        screening: { SANCTIONS: { matched: true, hitCount: 1 } },
      },
    });
  });

  it('not on a first clean result: the import evaluation already saw no match', () => {
    const imported = importCmd();
    const events = spec
      .given(history(imported))
      .when(screen(`${imported.commandId}:screen`, []))
      .events();
    expect(types(events)).toEqual(['ScreeningCompleted']);
  });

  it('when a later screening changes the matched state either way, or the hit set', () => {
    const imported = importCmd();
    const first = screen(`${imported.commandId}:screen`, []);
    const update = importCmd({ action: 'UPDATE' });
    // clean -> matched
    const toMatched = spec
      .given(history(imported, first, update))
      .when(screen(`${update.commandId}:screen`, [hit]))
      .events();
    expect(types(toMatched)).toEqual(['ScreeningCompleted', 'RiskEvaluationRequested']);
    // matched -> clean
    const matchedFirst = screen(`${imported.commandId}:screen`, [hit]);
    const toClean = spec
      .given(history(imported, matchedFirst, update))
      .when(screen(`${update.commandId}:screen`, []))
      .events();
    expect(toClean[1]).toMatchObject({
      type: 'RiskEvaluationRequested',
      data: { reason: 'SCREENING_CHANGED', screening: { SANCTIONS: { matched: false, hitCount: 0 } } },
    });
    // another hit set
    const other = spec
      .given(history(imported, matchedFirst, update))
      .when(screen(`${update.commandId}:screen`, [hit, otherHit]))
      .events();
    expect(types(other)).toEqual(['ScreeningCompleted', 'RiskEvaluationRequested']);
  });

  it('not when a later screening finds the same matches', () => {
    const imported = importCmd();
    const update = importCmd({ action: 'UPDATE' });
    const events = spec
      .given(history(imported, screen(`${imported.commandId}:screen`, [hit]), update))
      .when(screen(`${update.commandId}:screen`, [hit]))
      .events();
    expect(types(events)).toEqual(['ScreeningCompleted']);
    expect(events[0]).toMatchObject({ data: { changed: false } });
  });

  it('not for an IMPORT customer (the level is the client-supplied one) nor a simplified one', () => {
    const imported = importCmd({ sourceOfRiskLevel: 'IMPORT', riskLevel: 'LOW' });
    const events = spec
      .given(history(imported))
      .when(screen(`${imported.commandId}:screen`, [hit]))
      .events();
    expect(types(events)).toEqual(['ScreeningCompleted']);

    const simple = cmd('ImportSimplifiedCustomer', {
      customer: {
        communicationNumber: 'S-1',
        businessUnit: 'DEMO',
        customerExtId: 'C-9',
        entityType: 'INDIVIDUAL',
        firstName: 'A',
        lastName: 'B',
      } as CustomerData,
    });
    const simplified = spec
      .given(history(simple))
      .when(screen(`${simple.commandId}:screen`, [hit]))
      .events();
    expect(types(simplified)).toEqual(['ScreeningCompleted']);
  });

  it('a suppressed (false positive) hit alone is no match and asks for nothing on a first result', () => {
    const imported = importCmd();
    const events = spec
      .given(history(imported))
      .when(screen(`${imported.commandId}:screen`, [{ ...hit, suppressed: true }]))
      .events();
    expect(types(events)).toEqual(['ScreeningCompleted']);
  });
});

describe('UPDATE with EVALUATE', () => {
  const assessment = {
    source: 'EVALUATE' as const,
    level: 'LOW' as const,
    score: 12,
    matrixId: 'm',
    matrixVersion: 1,
  };

  it('records CUSTOMER_UPDATED as the reason, with the latest screening in the subject', () => {
    const imported = importCmd();
    const update = importCmd({ action: 'UPDATE', lastName: 'Changed' });
    const events = spec
      .given(history(imported, screen(`${imported.commandId}:screen`, [hit])))
      .when(update)
      .events();
    expect(events.find((e) => e.type === 'RiskEvaluationRequested')).toEqual({
      type: 'RiskEvaluationRequested',
      data: {
        requestId: `${update.commandId}:eval`,
        reason: 'CUSTOMER_UPDATED',
        customer: update.data.customer,
        screening: { SANCTIONS: { matched: true, hitCount: 1 } },
      },
    });
  });

  it('a CREATE and the upgrade of a simplified customer stay IMPORT_EVALUATE', () => {
    const created = spec.given([]).when(importCmd()).events();
    expect(created.find((e) => e.type === 'RiskEvaluationRequested')).toMatchObject({
      data: { reason: 'IMPORT_EVALUATE' },
    });
    const simple = cmd('ImportSimplifiedCustomer', {
      customer: {
        communicationNumber: 'S-2',
        businessUnit: 'DEMO',
        customerExtId: 'C-9',
        entityType: 'INDIVIDUAL',
        firstName: 'A',
        lastName: 'B',
      } as CustomerData,
    });
    const upgraded = spec.given(history(simple)).when(importCmd()).events();
    expect(upgraded.find((e) => e.type === 'RiskEvaluationRequested')).toMatchObject({
      data: { reason: 'IMPORT_EVALUATE' },
    });
  });

  it('is answered with an assessment even when nothing changed: the client asked for it', () => {
    const imported = importCmd();
    const first = cmd('RecordRiskAssessment', { requestId: `${imported.commandId}:eval`, assessment });
    const update = importCmd({ action: 'UPDATE' });
    const answer = cmd('RecordRiskAssessment', { requestId: `${update.commandId}:eval`, assessment });
    spec
      .given(history(imported, first, update))
      .when(answer)
      .then([
        {
          type: 'RiskAssessed',
          data: { requestId: `${update.commandId}:eval`, assessment, previousLevel: 'LOW' },
        },
      ]);
  });
});

describe('RecordScreeningDecision', () => {
  const decision = (decision: 'CONFIRMED' | 'FALSE_POSITIVE', h: ScreeningHitData = hit) =>
    cmd('RecordScreeningDecision', {
      decisionId: `d-${seq + 1}`,
      list: 'SANCTIONS',
      source: h.source,
      entryId: h.entryId,
      subject: h.subject ?? 'CUSTOMER',
      decision,
      reason: 'checked the passport',
      decidedBy: 'analyst-1',
    });
  const imported = importCmd();
  const matched = screen(`${imported.commandId}:screen`, [hit, otherHit]);

  it('a confirmed hit is recorded and re-evaluates with confirmed: true for that list', () => {
    const c = decision('CONFIRMED');
    const events = spec.given(history(imported, matched)).when(c).events();
    expect(events).toEqual([
      { type: 'ScreeningHitDecided', data: c.data },
      {
        type: 'RiskEvaluationRequested',
        data: {
          requestId: `${c.commandId}:eval`,
          reason: 'SCREENING_CHANGED',
          customer: imported.data.customer,
          screening: { SANCTIONS: { matched: true, hitCount: 2, confirmed: true } },
        },
      },
    ]);
  });

  it('the same decision again records nothing; a changed decision is recorded', () => {
    const confirmed = decision('CONFIRMED');
    spec
      .given(history(imported, matched, confirmed))
      .when(decision('CONFIRMED'))
      .thenNothing();
    const events = spec
      .given(history(imported, matched, confirmed))
      .when(decision('FALSE_POSITIVE'))
      .events();
    expect(events[0]).toMatchObject({ type: 'ScreeningHitDecided', data: { decision: 'FALSE_POSITIVE' } });
  });

  it('dismissing every current hit re-evaluates with confirmed: false; dismissing only one changes nothing for the engine', () => {
    const one = decision('FALSE_POSITIVE');
    expect(types(spec.given(history(imported, matched)).when(one).events())).toEqual(['ScreeningHitDecided']);
    const both = spec
      .given(history(imported, matched, one))
      .when(decision('FALSE_POSITIVE', otherHit))
      .events();
    expect(both[1]).toMatchObject({
      type: 'RiskEvaluationRequested',
      data: { screening: { SANCTIONS: { matched: true, hitCount: 2, confirmed: false } } },
    });
  });

  it('a confirmed hit stays in the evaluation subject of later re-evaluations', () => {
    const re = cmd('RequestReevaluation', { reason: 'MATRIX_ACTIVATED' });
    const events = spec
      .given(history(imported, matched, decision('CONFIRMED')))
      .when(re)
      .events();
    expect(events[0]).toMatchObject({
      data: { screening: { SANCTIONS: { matched: true, hitCount: 2, confirmed: true } } },
    });
  });

  it('an IMPORT customer records the decision without an evaluation; an unknown customer records nothing', () => {
    const imp = importCmd({ sourceOfRiskLevel: 'IMPORT', riskLevel: 'LOW' });
    const events = spec
      .given(history(imp, screen(`${imp.commandId}:screen`, [hit])))
      .when(decision('CONFIRMED'))
      .events();
    expect(types(events)).toEqual(['ScreeningHitDecided']);
    spec.given([]).when(decision('CONFIRMED')).thenNothing();
  });
});
