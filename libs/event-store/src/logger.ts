/** The slice of a pino (or console) logger the background loops use: `(details, message)`. */
export type Logger = {
  info: (details: Record<string, unknown>, message?: string) => void;
  warn: (details: Record<string, unknown>, message?: string) => void;
  error: (details: Record<string, unknown>, message?: string) => void;
};

/** Only for tests that assert on nothing logged; background loops in services take a real logger. */
export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * JSON lines on stderr, for scripts and tests that run a runner without a service's pino (the
 * replay tool, a rebuild in an e2e suite). `err` is spelled out: JSON.stringify drops an Error's message.
 */
export const consoleLogger = (name: string, minimum: 'info' | 'warn' | 'error' = 'info'): Logger => {
  const rank = { info: 0, warn: 1, error: 2 } as const;
  const write = (level: keyof typeof rank) => (details: Record<string, unknown>, message?: string) => {
    if (rank[level] < rank[minimum]) return;
    const { err, ...rest } = details;
    const error = err instanceof Error ? { message: err.message, stack: err.stack } : err;
    process.stderr.write(
      JSON.stringify(
        { level, name, time: new Date().toISOString(), msg: message, ...rest, ...(err === undefined ? {} : { err: error }) },
        (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
      ) + '\n',
    );
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
};

/** Serializes async work: the background loop and explicit rebuilds never run a batch at once. */
export const createMutex = () => {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    // The caller of `run` gets its error; the tail only orders the next piece of work.
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
