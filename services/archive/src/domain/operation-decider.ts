import type {
  ArchiveOperationCommand,
  OperationArchived,
  OperationData,
  OperationRegistered,
} from '@crs/contracts/types';
import type { OperationState } from './operation-state';

/** An operation message from upstream, as the shell hands it to the decider. */
export interface ReceiveOperation {
  type: 'ReceiveOperation';
  operation: OperationData;
}

export type OperationInput = ReceiveOperation | ArchiveOperationCommand;

export type NewOperationEvent =
  | { type: 'OperationRegistered'; data: OperationRegistered['data'] }
  | { type: 'OperationArchived'; data: OperationArchived['data'] };

/** Nothing in the operation decider depends on time yet; the context keeps the decider shape uniform. */
export interface OperationDecisionContext {
  /** ISO date-time of the decision */
  now: string;
}

/** JSON with sorted keys: equal content compares equal whatever order upstream wrote the fields in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function sameContent(a: OperationData | undefined, b: OperationData): boolean {
  return a !== undefined && canonical(a) === canonical(b);
}

/**
 * The operation decider: pure and deterministic.
 * - An operation received for the first time is registered (revision 1). Received again with the same
 *   content (upstream redelivery) it decides nothing; with changed content it is registered again as
 *   the next revision. An archived operation stays archived when a new revision arrives: the archive is
 *   the client's decision, an upstream correction does not undo it.
 * - Archiving a registered operation archives it; archiving it again, or archiving an operation that
 *   was never registered, decides nothing (the HTTP layer answers 404 for unknown operations before a
 *   command is ever published, so the unknown case is only a race with the ingest and needs no event).
 */
export function decide(
  input: OperationInput,
  state: OperationState,
  _ctx?: OperationDecisionContext,
): NewOperationEvent[] {
  switch (input.type) {
    case 'ReceiveOperation':
      if (sameContent(state.operation, input.operation)) return [];
      return [
        { type: 'OperationRegistered', data: { operation: input.operation, revision: state.revision + 1 } },
      ];
    case 'ArchiveOperation': {
      if (!state.exists || state.archived) return [];
      const { requestedBy, reason } = input.data;
      return [
        { type: 'OperationArchived', data: { requestedBy, ...(reason !== undefined ? { reason } : {}) } },
      ];
    }
    default: {
      const unreachable: never = input;
      return unreachable;
    }
  }
}
