import type { ArchiveOperationCommand, OperationData, OperationEvent } from '@crs/contracts';
import { DeciderCore } from '@crs/messaging';
import { deciderSpec } from '@crs/testing';
import { operationEventFields } from '../decider/operation-decider-shell';
import { decider } from './decider';
import type { OperationInput } from './operation-decider';
import { evolve, initialState } from './operation-state';

const NOW = '2026-01-02T03:04:05.000Z';
const spec = deciderSpec(decider, { now: NOW });
const STREAM = 'DEMO:OP-1';

function operation(overrides: Partial<OperationData> = {}): OperationData {
  return {
    extId: 'OP-1',
    businessUnit: 'DEMO',
    customerExtId: 'C-1',
    type: 'PAYMENT',
    direction: 'OUT',
    amount: 125.5,
    currency: 'EUR',
    date: '2026-01-01',
    counterparty: { name: 'Acme Trading', country: 'LT', account: 'LT121000011101001000' },
    ...overrides,
  };
}

const receive = (op: OperationData = operation()): OperationInput => ({
  type: 'ReceiveOperation',
  operation: op,
});

function archive(reason?: string): ArchiveOperationCommand {
  return {
    commandId: 'cmd-archive',
    type: 'ArchiveOperation',
    streamId: STREAM,
    issuedAt: NOW,
    correlationId: 'req-1',
    businessUnit: 'DEMO',
    operationExtId: 'OP-1',
    data: { extId: 'OP-1', businessUnit: 'DEMO', requestedBy: 'clerk', ...(reason ? { reason } : {}) },
  };
}

/** Decided events as the decider shell's own core stores them, to use as history. */
function history(...inputs: OperationInput[]): OperationEvent[] {
  const core = new DeciderCore({
    decider,
    eventsTopic: 'history',
    now: () => NOW,
    eventFields: operationEventFields,
  });
  const decisions = inputs.map((command, n) => ({
    commandId: `in-${n}`,
    correlationId: `in-${n}`,
    streamId: STREAM,
    businessUnit: 'DEMO',
    command,
  }));
  return core.decideBatch(decisions, 0).map((m) => m.value as OperationEvent);
}

describe('an operation received from upstream', () => {
  it('is registered as revision 1 the first time', () => {
    spec
      .given([])
      .when(receive())
      .then([{ type: 'OperationRegistered', data: { operation: operation(), revision: 1 } }]);
  });

  it('received again with the same content (a redelivery) decides nothing, whatever the field order', () => {
    const { counterparty, ...rest } = operation();
    const reordered = {
      counterparty: { country: counterparty.country, account: counterparty.account, name: counterparty.name },
      ...rest,
    };
    spec
      .given(history(receive()))
      .when(receive(reordered as OperationData))
      .thenNothing();
  });

  it('received with changed content is registered again as the next revision', () => {
    const corrected = operation({ amount: 130 });
    spec
      .given(history(receive(), receive(operation({ amount: 127 }))))
      .when(receive(corrected))
      .then([{ type: 'OperationRegistered', data: { operation: corrected, revision: 3 } }]);
  });

  it('a new revision of an archived operation is recorded and the operation stays archived', () => {
    const given = spec.given(history(receive(), archive()));
    const corrected = operation({ description: 'corrected' });
    given
      .when(receive(corrected))
      .then([{ type: 'OperationRegistered', data: { operation: corrected, revision: 2 } }]);
    const after = [...history(receive(), archive())].reduce(evolve, initialState());
    const next = evolve(after, {
      ...history(receive())[0]!,
      streamVersion: 3,
      data: { operation: corrected, revision: 2 },
    } as OperationEvent);
    expect(next).toMatchObject({ archived: true, revision: 2, version: 3 });
  });
});

describe('ArchiveOperation', () => {
  it('archives a registered operation, recording who asked and why', () => {
    spec
      .given(history(receive()))
      .when(archive('duplicate booking'))
      .then([{ type: 'OperationArchived', data: { requestedBy: 'clerk', reason: 'duplicate booking' } }]);
  });

  it('of an archived operation decides nothing (a repeated call is harmless)', () => {
    spec.given(history(receive(), archive())).when(archive()).thenNothing();
  });

  it('of an unknown operation decides nothing', () => {
    spec.given([]).when(archive()).thenNothing();
  });
});

describe('evolve', () => {
  it('folds a registration and an archive into the state, at the highest version', () => {
    const events = history(receive(), archive());
    const state = events.reduce(evolve, initialState());
    expect(state).toEqual({ version: 2, exists: true, archived: true, revision: 1, operation: operation() });
  });
});
