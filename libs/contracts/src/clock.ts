/** Time enters deciders through commands; services read it from an injected Clock so tests can move it. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

/** The system's time moved ahead by an offset read at every call (a test stack's clock, shared by its processes). */
export const offsetClock = (offsetMs: () => number): Clock => ({ now: () => new Date(Date.now() + offsetMs()) });

export const CLOCK = 'CLOCK';
