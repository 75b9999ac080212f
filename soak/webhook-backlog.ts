// What the soak makes of the honest platforms' webhook deliveries that are not DELIVERED at its end.
//
// Webhooks about one resource go out in order (the dispatcher's IS_HEAD): once a receiver answered
// one of them 500 it is retried after 10 s, 20 s, 40 s… and every later webhook of that resource
// waits behind it, so a busy resource (a hot account) drains slowly, even after the refused one
// was acknowledged on a retry. Those are explained, not lost. What is never explained is a head of
// line (the first pending delivery of its resource) that is due, not leased, never attempted, and
// has been first in line for longer than the dispatcher's sweep could leave it: that is a stuck
// dispatcher, whatever is queued behind it.

export type DeliveryState = {
  id: string;
  platformId: string;
  type: string;
  status: string;
  lastStatusCode: number | null;
  attemptCount: number;
  resourceId: string;
  streamPosition: number;
  nextAttemptAt: Date;
  leaseUntil: Date | null;
  /** When it stopped being pending (delivered or failed); null while pending. */
  finishedAt: Date | null;
};

/** What the soak's receivers know of a delivery. */
export type ReceiverView = {
  /** Answered 500 and not acknowledged since: in retry. */
  inRetry(id: string): boolean;
  /** Answered 500 at least once, whatever came after: everything behind it waited. */
  everRefused(id: string): boolean;
};

export type Backlog = { failures: string[]; inRetryAfter500: number; queuedBehindRetry: number; stuckHeads: number };

/** How long a due, unleased head may wait for a first attempt: the sweep runs every 250 ms, a killed replica's job returns in 35 s. */
export const STUCK_HEAD_MS = 45_000;

const inLine = (a: DeliveryState, b: DeliveryState): number =>
  a.streamPosition !== b.streamPosition ? a.streamPosition - b.streamPosition : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The rows of each (platform, resource), in the dispatcher's order. */
const chains = (rows: readonly DeliveryState[]): DeliveryState[][] => {
  const byResource = new Map<string, DeliveryState[]>();
  for (const row of rows) {
    const key = `${row.platformId} ${row.resourceId}`;
    byResource.set(key, [...(byResource.get(key) ?? []), row]);
  }
  return [...byResource.values()].map((chain) => [...chain].sort(inLine));
};

/** The head's failure when it has been due, unleased and unattempted for too long (since it became first in line). */
const stuckHead = (chain: DeliveryState[], headIndex: number, now: Date): string | undefined => {
  const head = chain[headIndex]!;
  if (head.attemptCount > 0 || head.nextAttemptAt > now || (head.leaseUntil !== null && head.leaseUntil > now)) return undefined;
  const before = headIndex > 0 ? chain[headIndex - 1]!.finishedAt : null;
  const firstInLineAt = Math.max(head.nextAttemptAt.getTime(), before?.getTime() ?? 0);
  const waitedMs = now.getTime() - firstInLineAt;
  if (waitedMs <= STUCK_HEAD_MS) return undefined;
  return `${head.id} (${head.type}) is first in line for ${head.resourceId}, due and never attempted for ${Math.round(waitedMs / 1000)} s`;
};

/** Failures and figures of the deliveries that are not DELIVERED at `now`. */
export const judgeBacklog = (rows: readonly DeliveryState[], receivers: ReceiverView, now: Date): Backlog => {
  const backlog: Backlog = { failures: [], inRetryAfter500: 0, queuedBehindRetry: 0, stuckHeads: 0 };
  for (const chain of chains(rows)) {
    const headIndex = chain.findIndex((row) => row.status === 'PENDING');
    const stuck = headIndex >= 0 ? stuckHead(chain, headIndex, now) : undefined;
    if (stuck) {
      backlog.stuckHeads += 1;
      backlog.failures.push(stuck);
    }
    let behindRefusal = false;
    for (const row of chain) {
      if (row.status !== 'DELIVERED') {
        if (receivers.inRetry(row.id) && row.lastStatusCode === 500) {
          if (row.status === 'PENDING') backlog.inRetryAfter500 += 1;
        } else if (row.status === 'PENDING' && row.attemptCount === 0 && behindRefusal) {
          backlog.queuedBehindRetry += 1;
        } else if (!stuck || row !== chain[headIndex]) {
          backlog.failures.push(
            `${row.id} (${row.type}) is ${row.status} after ${row.attemptCount} attempts, last status ${row.lastStatusCode ?? 'none'}`,
          );
        }
      }
      if (receivers.everRefused(row.id)) behindRefusal = true;
    }
  }
  return backlog;
};
