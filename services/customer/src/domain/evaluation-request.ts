import type {
  CustomerCommand,
  CustomerData,
  CustomerEvent,
  CustomerEventData,
  CustomerEventType,
  ScreeningList,
} from '@crs/contracts/types';
import { evolve, type CustomerState } from './customer-state';

type EvaluationRequested = {
  type: 'RiskEvaluationRequested';
  data: CustomerEventData['RiskEvaluationRequested'];
};

/** The subject of an evaluation: the record, the latest screening per list and the internal-list mark. */
export function evaluationSubject(
  customer: CustomerData | undefined,
  state: CustomerState,
  listPurpose?: 'WHITE' | 'BLACK',
) {
  const screening = Object.fromEntries(
    Object.entries(state.screening).map(([list, r]) => {
      const confirmed = reviewOf(r!.hitKeys, state.screeningDecisions[list as ScreeningList]);
      return [
        list,
        {
          matched: r!.matched,
          hitCount: r!.hitKeys.length,
          ...(confirmed === undefined ? {} : { confirmed }),
        },
      ];
    }),
  );
  const purpose = listPurpose ?? state.listPurpose;
  return { ...(customer ? { customer } : {}), screening, ...(purpose ? { listPurpose: purpose } : {}) };
}

/**
 * What reviewers said about a list's current hits, in the risk engine's terms: true when one of them was
 * confirmed, false when every one was dismissed as a false positive, undefined otherwise (not reviewed).
 */
export function reviewOf(
  keys: string[],
  decisions: Record<string, 'CONFIRMED' | 'FALSE_POSITIVE'> | undefined,
): boolean | undefined {
  if (!decisions || keys.length === 0) return undefined;
  if (keys.some((k) => decisions[k] === 'CONFIRMED')) return true;
  if (keys.every((k) => decisions[k] === 'FALSE_POSITIVE')) return false;
  return undefined;
}

/**
 * The re-evaluation a screening change asks for: `recorded` (a screening result or a reviewer's
 * decision, the decision's first event) changed what the risk engine sees of the customer. Only
 * EVALUATE customers are evaluated (simplified and IMPORT customers keep their level); `changesLevel`
 * says, of the state after `recorded`, whether the change can move the level at all. The evaluation
 * sees the state after `recorded`.
 */
export function screeningReevaluation(
  command: CustomerCommand,
  state: CustomerState,
  recorded: { type: CustomerEventType; data: unknown },
  changesLevel: (after: CustomerState) => boolean = () => true,
): EvaluationRequested[] {
  if (state.simplified || state.sourceOfRiskLevel !== 'EVALUATE') return [];
  const after = evolve(state, {
    type: recorded.type,
    streamVersion: state.version + 1,
    data: recorded.data,
  } as CustomerEvent);
  if (!changesLevel(after)) return [];
  return [
    {
      type: 'RiskEvaluationRequested',
      data: {
        requestId: `${command.commandId}:eval`,
        reason: 'SCREENING_CHANGED',
        ...evaluationSubject(state.customer, after),
      },
    },
  ];
}
