import type {
  CustomerCommand,
  CustomerEventData,
  CustomerEventType,
  CustomerData,
  CustomerStatus,
  RiskLevel,
  ScreeningList,
} from '@crs/contracts/types';
import { hitKey, hitKeys, type CustomerState } from './customer-state';
import { evaluationSubject, reviewOf, screeningReevaluation } from './evaluation-request';
import { canTransition } from './status-lifecycle';
import { keyIdOf, retentionHold } from '@crs/privacy/rules';
import {
  CustomerAlreadyExistsError,
  CustomerDowngradeError,
  CustomerNotFoundError,
  CustomerNotScorableError,
  CustomerStatusTransitionError,
  RetentionHoldError,
  PersonalDataKeyErasedError,
} from './customer-errors';

export type NewEvent = {
  [K in CustomerEventType]: { type: K; data: CustomerEventData[K] };
}[CustomerEventType];

/** What a simplified customer is screened against: it exists for screening (reference product). */
export const SIMPLIFIED_SCREENING_LISTS: ScreeningList[] = ['SANCTIONS', 'PEP'];

/** Evaluations a client's import asked for: answered with an assessment even when nothing changed. */
const CLIENT_REQUESTED_REASONS = new Set(['IMPORT_EVALUATE', 'CUSTOMER_UPDATED']);

/** Time arrives from the shell; the decider never reads a clock. */
export interface DecisionContext {
  /** ISO date-time of the decision */
  now: string;
}

/**
 * Whether the customer's current personal data is erased: the last erasure took the key generation its
 * record is encrypted with. A record imported after the erasure has a new key and is not erased.
 */
export function personalDataErased(state: CustomerState): boolean {
  return state.erasure !== undefined && state.erasure.keyId === keyIdOf(state.customer);
}

function assertKeyNotErased(customer: CustomerData, state: CustomerState): void {
  const erased = state.erasure?.keyId;
  if (erased !== undefined && keyIdOf(customer) === erased) throw new PersonalDataKeyErasedError();
}

function overrideActive(state: CustomerState, now: string): boolean {
  return !!state.override && (!state.override.expiresAt || state.override.expiresAt > now);
}

function importEvents(
  command: Extract<CustomerCommand, { type: 'ImportCustomer' }>,
  state: CustomerState,
): NewEvent[] {
  const customer: CustomerData = command.data.customer;
  const channel = command.data.channel;
  const upgrade = state.exists && state.simplified;
  const action = customer.action ?? 'CREATE';
  if (action === 'CREATE' && state.exists && !upgrade) throw new CustomerAlreadyExistsError();
  if (action === 'UPDATE' && !state.exists) throw new CustomerNotFoundError();

  const requested = customer.customerStatus as CustomerStatus | undefined;
  const from = state.exists && !upgrade ? state.status : undefined;
  if (requested && !canTransition(from, requested))
    throw new CustomerStatusTransitionError(from ?? 'none', requested);

  // Batch import never evaluates or screens and defaults to IMPORT (reference product).
  const source = channel === 'BATCH' ? 'IMPORT' : (customer.sourceOfRiskLevel ?? 'IMPORT');
  // UPDATE replaces the data as a whole; a status left out keeps the current one (and a kept CLOSED
  // keeps its closingDate: closingDate comes only and always with CLOSED).
  const kept =
    state.status === 'CLOSED' && state.customer?.closingDate
      ? { closingDate: state.customer.closingDate }
      : {};
  const stored: CustomerData =
    requested || !state.status ? customer : { ...customer, customerStatus: state.status, ...kept };
  const events: NewEvent[] = [
    {
      type: state.exists ? 'CustomerUpdated' : 'CustomerCreated',
      data: { customer: stored, sourceOfRiskLevel: source, channel, simplified: false },
    },
  ];
  if (requested && requested !== state.status) {
    events.push({
      type: 'CustomerStatusChanged',
      data: {
        from: state.status ?? null,
        to: requested,
        ...(requested === 'CLOSED' && customer.closingDate ? { closingDate: customer.closingDate } : {}),
      },
    });
  }
  if (customer.listPurpose && customer.listPurpose !== state.listPurpose) {
    events.push({ type: 'InternalListPurposeRecorded', data: { listPurpose: customer.listPurpose } });
  }
  if (source === 'IMPORT') {
    if (customer.riskLevel) {
      events.push({
        type: 'RiskAssessed',
        data: {
          assessment: { source: 'IMPORT', level: customer.riskLevel as RiskLevel },
          previousLevel: state.assessment?.level ?? null,
        },
      });
    }
  } else {
    events.push({
      type: 'RiskEvaluationRequested',
      data: {
        requestId: `${command.commandId}:eval`,
        // An UPDATE (not the upgrade of a simplified customer, which is its first full record) re-evaluates.
        reason: state.exists && !upgrade ? 'CUSTOMER_UPDATED' : 'IMPORT_EVALUATE',
        ...evaluationSubject(stored, state, customer.listPurpose),
      },
    });
  }
  const lists = channel === 'BATCH' ? [] : [...new Set(customer.initializeScreeningProcesses ?? [])];
  if (lists.length > 0) {
    events.push({
      type: 'ScreeningRequested',
      data: { requestId: `${command.commandId}:screen`, lists, customer: stored },
    });
  }
  return events;
}

/**
 * The customer decider: pure, deterministic, total over commands. Rejections are thrown as
 * CustomerCommandRejectedError; a command already applied (same communicationNumber, or a reactor
 * answer to a request that is no longer open) decides nothing.
 */
export function decide(command: CustomerCommand, state: CustomerState, ctx: DecisionContext): NewEvent[] {
  switch (command.type) {
    case 'ImportCustomer':
      if (state.recentCorrelations.includes(command.correlationId)) return [];
      assertKeyNotErased(command.data.customer, state);
      return importEvents(command, state);

    case 'ImportSimplifiedCustomer': {
      if (state.recentCorrelations.includes(command.correlationId)) return [];
      assertKeyNotErased(command.data.customer, state);
      if (state.exists && !state.simplified) throw new CustomerDowngradeError();
      return [
        {
          type: state.exists ? 'CustomerUpdated' : 'CustomerCreated',
          data: {
            customer: command.data.customer,
            sourceOfRiskLevel: 'IMPORT',
            channel: 'SIMPLIFIED',
            simplified: true,
          },
        },
        {
          type: 'ScreeningRequested',
          data: {
            requestId: `${command.commandId}:screen`,
            lists: SIMPLIFIED_SCREENING_LISTS,
            customer: command.data.customer,
          },
        },
      ];
    }

    case 'RecordRiskAssessment': {
      const reason = state.pendingEvaluations[command.data.requestId];
      // A late answer after the client switched the customer to IMPORT (or after a simplified import)
      // must not replace the client's level: only EVALUATE customers take computed assessments.
      if (reason === undefined || !state.exists || state.sourceOfRiskLevel !== 'EVALUATE') return [];
      const a = command.data.assessment;
      const prev = state.assessment;
      const unchanged =
        prev && prev.level === a.level && prev.score === a.score && prev.matrixVersion === a.matrixVersion;
      // A re-evaluation that changes nothing is not news; an evaluation the client asked for (an import or
      // an update with EVALUATE) always is: the client was told an assessment is pending.
      if (unchanged && !CLIENT_REQUESTED_REASONS.has(reason)) return [];
      const effective =
        overrideActive(state, ctx.now) && state.override
          ? { ...a, level: state.override.level, override: { ...state.override, computedLevel: a.level } }
          : a;
      return [
        {
          type: 'RiskAssessed',
          data: {
            requestId: command.data.requestId,
            assessment: effective,
            previousLevel: prev?.level ?? null,
          },
        },
      ];
    }

    case 'RecordScreeningResult': {
      // An erased customer is screened no more: a late answer has nothing to say about anyone.
      if (personalDataErased(state)) return [];
      const open = state.pendingScreenings[command.data.requestId];
      if (!open || !open.includes(command.data.list)) return [];
      const before = state.screening[command.data.list];
      const keys = hitKeys(command.data.hits);
      const changed =
        !before || before.matched !== command.data.matched || before.hitKeys.join() !== keys.join();
      const events: NewEvent[] = [
        {
          type: 'ScreeningCompleted',
          data: {
            requestId: command.data.requestId,
            list: command.data.list,
            matched: command.data.matched,
            hits: command.data.hits,
            changed,
            ...(command.data.snapshotVersion ? { snapshotVersion: command.data.snapshotVersion } : {}),
          },
        },
      ];
      // A first result that matches, or any change of an earlier result, can move the level; a first clean
      // result cannot (the import's evaluation already saw no match). IMPORT customers keep the client's level.
      const news = before ? changed : command.data.matched;
      if (news) events.push(...screeningReevaluation(command, state, events[0]!));
      return events;
    }

    case 'RecordRescreeningResult': {
      // Ongoing screening needs no open request, but only news is recorded: the hit set must differ.
      if (!state.exists || personalDataErased(state)) return [];
      const before = state.screening[command.data.list];
      const keys = hitKeys(command.data.hits);
      if (before && before.matched === command.data.matched && before.hitKeys.join() === keys.join())
        return [];
      const completed: NewEvent = {
        type: 'ScreeningCompleted',
        data: {
          requestId: `${command.commandId}:rescreen`,
          list: command.data.list,
          matched: command.data.matched,
          hits: command.data.hits,
          changed: true,
          snapshotVersion: command.data.snapshotVersion,
        },
      };
      return [completed, ...screeningReevaluation(command, state, completed)];
    }

    case 'RecordScreeningDecision': {
      // A reviewer confirmed or dismissed one hit: recorded once; an EVALUATE customer is re-evaluated
      // when the decision changes what the engine sees of that list (confirmed, dismissed, not reviewed).
      if (!state.exists) return [];
      const d = command.data;
      const decisions = state.screeningDecisions[d.list] ?? {};
      if (decisions[hitKey(d)] === d.decision) return [];
      const decided: NewEvent = { type: 'ScreeningHitDecided', data: d };
      const current = state.screening[d.list]?.hitKeys ?? [];
      const before = reviewOf(current, decisions);
      return [
        decided,
        ...screeningReevaluation(
          command,
          state,
          decided,
          (after) => reviewOf(current, after.screeningDecisions[d.list]) !== before,
        ),
      ];
    }

    case 'SetRiskOverride': {
      if (!state.exists) throw new CustomerNotFoundError();
      if (state.simplified) throw new CustomerNotScorableError();
      const { level, reason, expiresAt, setBy } = command.data;
      return [
        { type: 'RiskOverrideSet', data: { level, reason, setBy, ...(expiresAt ? { expiresAt } : {}) } },
        {
          type: 'RiskAssessed',
          data: {
            assessment: {
              source: 'OVERRIDE',
              level,
              override: {
                reason,
                setBy,
                ...(expiresAt ? { expiresAt } : {}),
                computedLevel: state.assessment?.level ?? null,
              },
            },
            previousLevel: state.assessment?.level ?? null,
          },
        },
      ];
    }

    case 'RequestReevaluation': {
      if (!state.exists || state.simplified || personalDataErased(state)) return [];
      if (state.sourceOfRiskLevel !== 'EVALUATE') {
        // IMPORT customers keep the client's level: nothing is computed for them. When a manual override
        // of such a customer expired, its level returns to the one the client imported.
        const computed = state.assessment?.override?.computedLevel;
        const imported =
          (state.customer?.riskLevel as RiskLevel | undefined) ??
          (typeof computed === 'string' ? (computed as RiskLevel) : undefined);
        if (command.data.reason !== 'OVERRIDE_EXPIRED' || overrideActive(state, ctx.now)) return [];
        if (state.assessment?.source !== 'OVERRIDE' || !imported) return [];
        return [
          {
            type: 'RiskAssessed',
            data: {
              assessment: { source: 'IMPORT', level: imported },
              previousLevel: state.assessment.level,
            },
          },
        ];
      }
      return [
        {
          type: 'RiskEvaluationRequested',
          data: {
            requestId: `${command.commandId}:eval`,
            reason: command.data.reason,
            ...evaluationSubject(state.customer, state),
          },
        },
      ];
    }

    case 'ErasePersonalData': {
      // docs/privacy.md: recorded once (a repeat of an erasure already made decides nothing); refused
      // while a retention hold applies, unless the caller may override it.
      if (!state.exists) throw new CustomerNotFoundError();
      if (personalDataErased(state)) return [];
      const d = command.data;
      const hold = retentionHold(
        { status: state.status ?? null, endedAt: state.endedAt ?? null, simplified: state.simplified },
        d.retentionYears,
        ctx.now,
      );
      if (hold.held && !d.override) throw new RetentionHoldError(hold.holdUntil);
      const keyId = keyIdOf(state.customer);
      return [
        {
          type: 'PersonalDataErased',
          data: {
            reason: d.reason,
            erasedBy: d.requestedBy,
            override: hold.held,
            retentionYears: d.retentionYears,
            source: d.source,
            ...(keyId ? { keyId } : {}),
            relationshipEndedAt: hold.endedAt,
            holdUntil: hold.held ? hold.holdUntil : null,
          },
        },
      ];
    }

    default: {
      const unreachable: never = command;
      return unreachable;
    }
  }
}
