// The platform reaches some states asynchronously (accounts opened from events, webhooks delivered,
// a projection caught up); tests, benchmarks and the soak poll for them, bounded. These are waits,
// not timing assertions: the bound only turns a state that never comes into a failure (or, for the
// soak, a recorded surprise) instead of a hung run. One loop serves all three forms below.

/** How long to keep reading and how long to pause between reads. */
export type PollBound = { timeoutMs?: number; intervalMs?: number };

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_INTERVAL_MS = 50;

const boundOf = (bound: number | PollBound): Required<PollBound> =>
  typeof bound === 'number'
    ? { timeoutMs: bound, intervalMs: DEFAULT_INTERVAL_MS }
    : { timeoutMs: bound.timeoutMs ?? DEFAULT_TIMEOUT_MS, intervalMs: bound.intervalMs ?? DEFAULT_INTERVAL_MS };

const poll = async <T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  bound: Required<PollBound>,
): Promise<{ value: T; met: boolean }> => {
  const deadline = Date.now() + bound.timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return { value, met: true };
    if (Date.now() > deadline) return { value, met: false };
    await new Promise((resolve) => setTimeout(resolve, bound.intervalMs));
  }
};

/**
 * Reads until `done` holds, or the bound passes, and returns the last value read either way: the
 * caller's assertion on it is the check (jest then shows the value), or the caller records it.
 */
export const eventually = async <T>(read: () => Promise<T> | T, done: (value: T) => boolean, bound: number | PollBound = {}): Promise<T> =>
  (await poll(read, done, boundOf(bound))).value;

/** Reads until `done` holds and returns that value; fails naming `what` and the last value read when it never does. */
export const until = async <T>(
  what: string,
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  bound: number | PollBound = {},
  context: () => string = () => '',
): Promise<T> => {
  const limits = boundOf(bound);
  const { value, met } = await poll(read, done, limits);
  if (!met) throw new Error(`Timed out after ${limits.timeoutMs} ms waiting for ${what} (last read: ${shown(value)}).${context()}`);
  return value;
};

/** Waits until `check` holds; fails naming `what` (and any context the caller adds) when it never does. */
export const waitUntil = async (
  what: string,
  check: () => Promise<boolean> | boolean,
  bound: number | PollBound = {},
  context: () => string = () => '',
): Promise<void> => {
  const limits = boundOf(bound);
  if (!(await poll(check, Boolean, limits)).met) throw new Error(`Timed out after ${limits.timeoutMs} ms waiting for ${what}.${context()}`);
};

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
};
