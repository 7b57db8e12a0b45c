import { decide } from './operation-decider';
import { evolve, initialState } from './operation-state';

/** The operation decider (STYLE.md): pure and total; the decider shell of @crs/messaging runs it. */
export const decider = { initialState, evolve, decide };
