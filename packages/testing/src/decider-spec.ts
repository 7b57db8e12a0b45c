import type { Decider, DecisionContext } from '@crs/messaging';

/**
 * given / when / then for pure deciders (after emmett's DeciderSpecification): the state is folded from
 * the given events with the decider's own evolve, so a spec exercises decide and evolve together. The
 * decider is the one DeciderShell runs (`Decider` of @crs/messaging).
 */
export function deciderSpec<Command, Event, State, NewEvent>(
  decider: Decider<Command, Event, State, NewEvent>,
  ctx: DecisionContext,
) {
  return {
    given(events: Event[]) {
      const state = events.reduce((s, e) => decider.evolve(s, e), decider.initialState());
      return {
        state,
        when(command: Command) {
          const run = () => decider.decide(command, state, ctx);
          return {
            then(expected: NewEvent[]) {
              expect(run()).toEqual(expected);
            },
            thenContains(expected: Partial<NewEvent>[]) {
              expect(run()).toEqual(expected.map((e) => expect.objectContaining(e)));
            },
            thenNothing() {
              expect(run()).toEqual([]);
            },
            thenRejects(errorClass: new (...args: never[]) => Error, code?: string) {
              let caught: unknown;
              try {
                run();
              } catch (err) {
                caught = err;
              }
              expect(caught).toBeInstanceOf(errorClass);
              if (code) expect((caught as { code?: string }).code).toBe(code);
            },
            events: run,
          };
        },
      };
    },
  };
}
