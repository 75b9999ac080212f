// The system reaches some states asynchronously (accounts opened from events, webhooks delivered);
// the suites poll for them, bounded. These are waits, not timing assertions: the bound only turns
// a state that never comes into a failure instead of a hung run.

const POLL_INTERVAL_MS = 50;

/** Reads until `done` holds or the bound passes; returns the last value read either way. */
export const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
};

/** Waits until `check` holds; fails naming `what` (and any context the caller adds) when it never does. */
export const waitUntil = async (
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
  context: () => string = () => '',
): Promise<void> => {
  if (!(await eventually(async () => check(), Boolean, timeoutMs)))
    throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.${context()}`);
};
