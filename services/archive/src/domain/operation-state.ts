import type { OperationData, OperationEvent } from '@crs/contracts/types';

export interface OperationState {
  /** Stream version of the last applied event (0 = no history). */
  version: number;
  exists: boolean;
  archived: boolean;
  /** Revision of the recorded content: 1 for the first content, +1 for each change. */
  revision: number;
  operation?: OperationData;
}

export function initialState(): OperationState {
  return { version: 0, exists: false, archived: false, revision: 0 };
}

/** Pure and total: folds one event into the state; never throws. */
export function evolve(state: OperationState, event: OperationEvent): OperationState {
  const s: OperationState = { ...state, version: Math.max(state.version, event.streamVersion) };
  switch (event.type) {
    case 'OperationRegistered':
      return { ...s, exists: true, operation: event.data.operation, revision: event.data.revision };
    case 'OperationArchived':
      return { ...s, archived: true };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
