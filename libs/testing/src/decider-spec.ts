import type { Command, DomainError, Event } from '@corridor/contracts';

// Given/when/then for pure deciders, shaped like emmett's DeciderSpecification so a rule reads
// as the events that happened, the command that arrives, and the events (or error) it must yield.

export type DeciderUnderTest<State, C extends Command, E extends Event> = {
  decide: (command: C, state: State) => E[];
  evolve: (state: State, event: E) => State;
  initialState: () => State;
};

export type DeciderThen<E extends Event> = {
  then: (expectedEvents: E[]) => void;
  /** The check may return false or throw (e.g. with `expect`) to reject the error. */
  thenThrows: (check?: (error: DomainError) => boolean | void) => void;
  thenNothingHappened: () => void;
};

export type DeciderWhen<C extends Command, E extends Event> = {
  when: (command: C) => DeciderThen<E>;
};

export type DeciderSpec<C extends Command, E extends Event> = {
  given: (events?: E[]) => DeciderWhen<C, E>;
};

export const deciderSpec = <State, C extends Command, E extends Event>(decider: DeciderUnderTest<State, C, E>): DeciderSpec<C, E> => ({
  given: (events: E[] = []) => ({
    when: (command: C) => {
      // Deciding is deferred until an assertion runs, so thenThrows can observe the throw.
      const run = (): E[] => decider.decide(command, events.reduce(decider.evolve, decider.initialState()));
      return {
        then: (expectedEvents) => {
          expect(run()).toEqual(expectedEvents);
        },
        thenNothingHappened: () => {
          expect(run()).toEqual([]);
        },
        thenThrows: (check) => {
          const error = captureError(run);
          if (check && check(error as DomainError) === false) {
            throw new Error(`The thrown error did not pass the check: ${describeError(error)}`);
          }
        },
      };
    },
  }),
});

/**
 * For an aggregate with one decide function per command (agents, cards, customers...): bind the
 * aggregate's evolve and initial state once, then name the decide function in each case. The
 * command's type comes from that function, so `when` takes exactly that command and a misspelt or
 * missing member fails to compile.
 *
 *   const spec = deciderSpecFor(actionDecider);
 *   spec(approveAction).given([submitted]).when({ type: 'ApproveAction', data: ids, metadata: { now } }).then([approved]);
 */
export const deciderSpecFor =
  <State, E extends Event>(aggregate: Omit<DeciderUnderTest<State, Command, E>, 'decide'>) =>
  <C extends Command>(decide: (command: C, state: State) => E[]): DeciderSpec<C, E> =>
    deciderSpec({ decide, evolve: aggregate.evolve, initialState: aggregate.initialState });

const captureError = (run: () => unknown): unknown => {
  let produced: unknown;
  try {
    produced = run();
  } catch (error) {
    return error;
  }
  throw new Error(`Expected the decider to throw, but it returned ${JSON.stringify(produced)}.`);
};

const describeError = (error: unknown): string =>
  error instanceof Error
    ? `${error.name}${'code' in error ? ` ${String((error as { code: unknown }).code)}` : ''}: ${error.message}`
    : JSON.stringify(error);
