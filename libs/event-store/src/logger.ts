/** The slice of a pino (or console) logger the background loops use: `(details, message)`. */
export type Logger = {
  info: (details: Record<string, unknown>, message?: string) => void;
  warn: (details: Record<string, unknown>, message?: string) => void;
  error: (details: Record<string, unknown>, message?: string) => void;
};

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Serializes async work: the background loop and explicit rebuilds never run a batch at once. */
export const createMutex = () => {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
};

/**
 * A sleep that a nudge can cut short. A nudge that arrives while no one sleeps is remembered, so
 * work requested during a batch triggers exactly one more batch instead of being lost.
 */
export const createWakeup = () => {
  let wake: (() => void) | undefined;
  let pending = false;
  return {
    sleep(ms: number): Promise<void> {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    },
    nudge(): void {
      if (wake) wake();
      else pending = true;
    },
  };
};
