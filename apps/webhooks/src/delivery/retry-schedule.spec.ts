// Pins down the retry policy: growing gaps capped at 30 min, a 7-day window, no retry on 409 or
// for webhooks that are never retried.
import { MAX_RETRY_DELAY_MS, nextStep, RETRY_WINDOW_MS, retryDelayMs } from './retry-schedule';

const start = new Date('2026-05-01T00:00:00.000Z');
const at = (ms: number) => new Date(start.getTime() + ms);

describe('retryDelayMs', () => {
  it('doubles from 10 s and never exceeds 30 minutes', () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(retryDelayMs(8)).toBe(1_280_000);
    expect(retryDelayMs(9)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(500)).toBe(MAX_RETRY_DELAY_MS);
  });
});

describe('nextStep', () => {
  it('counts 2xx and 409 as delivered', () => {
    for (const statusCode of [200, 202, 204, 409]) {
      expect(nextStep({ result: { statusCode }, retried: true, attemptsMade: 1, windowStart: start, now: start })).toEqual({
        kind: 'delivered',
      });
    }
  });

  it('schedules a retry after a 500, a 401 or no answer at all', () => {
    for (const result of [{ statusCode: 500 }, { statusCode: 401 }, {}]) {
      expect(nextStep({ result, retried: true, attemptsMade: 2, windowStart: start, now: at(10_000) })).toEqual({
        kind: 'retry',
        at: at(30_000),
      });
    }
  });

  it('fails at once a webhook that is never retried (TEST, in-flow approval)', () => {
    expect(nextStep({ result: { statusCode: 500 }, retried: false, attemptsMade: 1, windowStart: start, now: start })).toEqual({
      kind: 'failed',
    });
  });

  it('gives up when the next attempt would fall after the 7-day window', () => {
    const lastInside = at(RETRY_WINDOW_MS - MAX_RETRY_DELAY_MS);
    expect(nextStep({ result: {}, retried: true, attemptsMade: 300, windowStart: start, now: lastInside })).toEqual({
      kind: 'retry',
      at: at(RETRY_WINDOW_MS),
    });
    expect(
      nextStep({ result: {}, retried: true, attemptsMade: 301, windowStart: start, now: at(RETRY_WINDOW_MS - MAX_RETRY_DELAY_MS + 1) }),
    ).toEqual({ kind: 'failed' });
  });

  it('makes roughly the reference number of attempts over the window when nothing answers', () => {
    let now = start;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      const step = nextStep({ result: {}, retried: true, attemptsMade: attempts, windowStart: start, now });
      if (step.kind !== 'retry') break;
      expect(step.at.getTime() - now.getTime()).toBeLessThanOrEqual(MAX_RETRY_DELAY_MS);
      now = step.at;
    }
    expect(now.getTime() - start.getTime()).toBeLessThanOrEqual(RETRY_WINDOW_MS);
    expect(attempts).toBeGreaterThan(300);
    expect(attempts).toBeLessThan(400);
  });
});
