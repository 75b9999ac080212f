// The retry policy of the reference: exponential backoff, at most 30 minutes between attempts,
// given up after 7 days; a 409 means the platform already has the webhook. Pure, so the whole
// schedule is unit-tested and a test clock drives it with no real waiting.

export const FIRST_RETRY_DELAY_MS = 10_000;
export const MAX_RETRY_DELAY_MS = 30 * 60 * 1000;
export const RETRY_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** Delay after the n-th failed attempt (n ≥ 1): 10 s, 20 s, 40 s … capped at 30 min. */
export const retryDelayMs = (attemptsMade: number): number =>
  Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.min(Math.max(attemptsMade, 1) - 1, 20));

export type AttemptResult = { statusCode?: number };

export type NextStep = { kind: 'delivered' } | { kind: 'failed' } | { kind: 'retry'; at: Date };

/** 2xx is an acknowledgement; 409 is "already processed", which is the same thing to us. */
export const isAcknowledged = (statusCode: number | undefined): boolean =>
  statusCode !== undefined && ((statusCode >= 200 && statusCode < 300) || statusCode === 409);

export const nextStep = (input: {
  result: AttemptResult;
  retried: boolean;
  attemptsMade: number;
  windowStart: Date;
  now: Date;
}): NextStep => {
  if (isAcknowledged(input.result.statusCode)) return { kind: 'delivered' };
  if (!input.retried) return { kind: 'failed' };
  const at = new Date(input.now.getTime() + retryDelayMs(input.attemptsMade));
  // `>` keeps an attempt that lands exactly on the 7-day mark: the window is inclusive.
  if (at.getTime() - input.windowStart.getTime() > RETRY_WINDOW_MS) return { kind: 'failed' };
  return { kind: 'retry', at };
};
