/** Time enters deciders through commands; services read it from an injected Clock so tests can move it. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

export const CLOCK = 'CLOCK';
