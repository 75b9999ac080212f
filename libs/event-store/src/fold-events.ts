import type { RecordedEvent } from './types';

/** The part of a decider that rebuilds state: what loading a stream needs. */
export type Evolver<State, E> = { evolve: (state: State, event: E) => State; initialState: () => State };

/**
 * Folds a stream's recorded events into the decider's state. The store hands back events as
 * recorded (type and data as stored, upcast); the stream's decider is what gives them their type,
 * so this is the one place that cast is made.
 */
export const foldEvents = <State, E>(decider: Evolver<State, E>, events: readonly RecordedEvent[]): State =>
  events.reduce((state, event) => decider.evolve(state, event as unknown as E), decider.initialState());
