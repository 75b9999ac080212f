import type { Clock } from '@corridor/contracts';

// A clock tests move by hand, so "expires after 30 s" is tested by advancing time, never by waiting.

export type ControllableClock = Clock & {
  advance(ms: number): void;
  set(date: Date): void;
};

export const createControllableClock = (start: Date = new Date('2025-01-01T00:00:00.000Z')): ControllableClock => {
  let currentMs = start.getTime();
  return {
    // A fresh Date each call, so a caller mutating the result cannot move the clock.
    now: () => new Date(currentMs),
    advance: (ms) => {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance(ms) needs a finite ms >= 0, got ${ms}.`);
      currentMs += ms;
    },
    set: (date) => {
      currentMs = date.getTime();
    },
  };
};
