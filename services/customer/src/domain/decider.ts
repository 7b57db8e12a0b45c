import { decide } from './customer-decider';
import { evolve, initialState } from './customer-state';

/**
 * The customer decider (STYLE.md): pure and total; the decider shell of @crs/messaging runs it.
 * Rejections are thrown as CustomerCommandRejectedError (see commandRejected).
 */
export const decider = { initialState, evolve, decide };
