import { type DeliveryState, judgeBacklog, type ReceiverView, STUCK_HEAD_MS } from './webhook-backlog';

const now = new Date('2026-11-28T12:00:00Z');
const secondsAgo = (seconds: number) => new Date(now.getTime() - seconds * 1_000);

/** A delivery of resource `resource` at `position`, pending and never attempted unless told otherwise. */
const delivery = (id: string, position: number, change: Partial<DeliveryState> = {}): DeliveryState => ({
  id,
  platformId: 'p1',
  type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED',
  status: 'PENDING',
  lastStatusCode: null,
  attemptCount: 0,
  resourceId: 'acct-1',
  streamPosition: position,
  nextAttemptAt: secondsAgo(80),
  leaseUntil: null,
  finishedAt: null,
  ...change,
});
const delivered = (id: string, position: number, secondsBefore: number) =>
  delivery(id, position, { status: 'DELIVERED', attemptCount: 1, lastStatusCode: 200, finishedAt: secondsAgo(secondsBefore) });

const receivers = (inRetry: string[], refusedOnce: string[] = []): ReceiverView => ({
  inRetry: (id) => inRetry.includes(id),
  everRefused: (id) => inRetry.includes(id) || refusedOnce.includes(id),
});

describe('the soak’s judgement of undelivered webhooks', () => {
  it('explains a retry after our 500 and what waits behind it', () => {
    const retrying = delivery('w1', 1, { attemptCount: 2, lastStatusCode: 500, nextAttemptAt: new Date(now.getTime() + 10_000) });
    const backlog = judgeBacklog([retrying, delivery('w2', 2), delivery('w3', 3)], receivers(['w1']), now);
    expect(backlog).toEqual({ failures: [], inRetryAfter500: 1, queuedBehindRetry: 2, stuckHeads: 0 });
  });

  it('explains a chain still draining behind a webhook our receiver refused once and acknowledged on a retry', () => {
    // w1 was answered 500, then 200 twenty seconds ago; w2 is out now, w3 and w4 wait their turn.
    const rows = [
      delivered('w1', 1, 20),
      delivery('w2', 2, { attemptCount: 1, leaseUntil: new Date(now.getTime() + 5_000) }),
      delivery('w3', 3),
      delivery('w4', 4),
    ];
    const backlog = judgeBacklog(rows, receivers([], ['w1']), now);
    expect(backlog.failures).toEqual(['w2 (INTERNAL_ACCOUNT.BALANCE_UPDATED) is PENDING after 1 attempts, last status none']);
    expect(backlog.queuedBehindRetry).toBe(2);
  });

  it('fails a head of line that has been due and unattempted for longer than the sweep allows, even behind a refusal', () => {
    const waited = STUCK_HEAD_MS / 1_000 + 5;
    const rows = [delivered('w1', 1, waited), delivery('w2', 2), delivery('w3', 3)];
    const backlog = judgeBacklog(rows, receivers([], ['w1']), now);
    expect(backlog.stuckHeads).toBe(1);
    expect(backlog.failures).toEqual([
      `w2 (INTERNAL_ACCOUNT.BALANCE_UPDATED) is first in line for acct-1, due and never attempted for ${waited} s`,
    ]);
  });

  it('does not call a head stuck that became first in line a moment ago', () => {
    const rows = [delivered('w1', 1, 1), delivery('w2', 2), delivery('w3', 3)];
    const backlog = judgeBacklog(rows, receivers([], ['w1']), now);
    expect(backlog).toEqual({ failures: [], inRetryAfter500: 0, queuedBehindRetry: 2, stuckHeads: 0 });
  });

  it('fails what waits behind nothing our receivers did, in the dispatcher’s order (position, then id)', () => {
    const rows = [delivery('w9', 5, { nextAttemptAt: secondsAgo(1) }), delivery('w1', 5, { nextAttemptAt: secondsAgo(1) })];
    const backlog = judgeBacklog(rows, receivers([]), now);
    expect(backlog.failures).toEqual([
      'w1 (INTERNAL_ACCOUNT.BALANCE_UPDATED) is PENDING after 0 attempts, last status none',
      'w9 (INTERNAL_ACCOUNT.BALANCE_UPDATED) is PENDING after 0 attempts, last status none',
    ]);
  });

  it('keeps resources and platforms apart', () => {
    const other = delivery('x1', 1, { platformId: 'p2', nextAttemptAt: secondsAgo(1) });
    const backlog = judgeBacklog([delivered('w1', 1, 1), delivery('w2', 2), other], receivers([], ['w1']), now);
    expect(backlog.queuedBehindRetry).toBe(1);
    expect(backlog.failures).toEqual(['x1 (INTERNAL_ACCOUNT.BALANCE_UPDATED) is PENDING after 0 attempts, last status none']);
  });
});
