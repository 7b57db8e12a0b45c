/** Time arrives from the shell: a decider never reads a clock (STYLE.md). */
export interface DecisionContext {
  /** ISO date-time of the decision */
  now: string;
}

/**
 * A pure decider (STYLE.md, after emmett): what a service's domain exports as `decider` and what
 * DeciderShell runs. `evolve` is total and never throws; `decide` rejects with a typed error.
 */
export interface Decider<Command, Event, State, NewEvent> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State, ctx: DecisionContext): NewEvent[];
}

/** One consumed message in the decider's terms, with what the envelope of its events needs. */
export interface Decision<Command> {
  /**
   * What is decided, for good: the ids of its events derive from it and their position
   * (deriveEventId), so a decision made again after a crash yields the same ids.
   */
  commandId: string;
  correlationId: string;
  streamId: string;
  businessUnit: string;
  command: Command;
}

/** What the shell reads of a stored event: its stream and its version there. */
export interface StreamEvent {
  type: string;
  streamId: string;
  streamVersion: number;
}

/** What the shell reads of a decider's state: the version of the last event folded into it. */
export interface VersionedState {
  version: number;
}

/** What a decider decides: the type and data of an event, before the shell wraps it in its envelope. */
export interface DecidedEvent {
  type: string;
  data: unknown;
}
