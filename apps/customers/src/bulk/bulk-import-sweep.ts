import type { PartHealth } from '@corridor/contracts';

// What the periodic sweep of bulk imports decides from the unfinished jobs of the read model and
// the queue entries Redis still holds. Redis keeps nothing across a restart (or a FLUSHDB), and a
// job whose entry is gone would stay PENDING or PROCESSING until the service restarts: the sweep
// queues it again (the queue keeps one entry per job id, and a run resumes after the last recorded
// batch, so queueing a live job twice is harmless). Like the webhooks dispatcher's tick after a
// Redis loss, it trusts PostgreSQL for what is unfinished and Redis only for what is queued.

export type UnfinishedImport = { id: string; status: 'PENDING' | 'PROCESSING'; updatedAt: Date };

export type SweepOutcome = {
  /** Unfinished jobs without a queue entry: to queue again. */
  requeue: string[];
  /** Unfinished jobs with no progress for stuckAfterMs (queued or not): named in /health. */
  stuck: { id: string; status: UnfinishedImport['status']; idleMs: number }[];
  unfinished: number;
};

export const sweepBulkImports = (
  unfinished: readonly UnfinishedImport[],
  queued: ReadonlySet<string>,
  now: Date,
  stuckAfterMs: number,
): SweepOutcome => ({
  requeue: unfinished.filter((job) => !queued.has(job.id)).map((job) => job.id),
  stuck: unfinished
    .map((job) => ({ id: job.id, status: job.status, idleMs: now.getTime() - job.updatedAt.getTime() }))
    .filter((job) => job.idleMs >= stuckAfterMs),
  unfinished: unfinished.length,
});

/** Stuck jobs a /health answer names; the count covers them all. */
const SHOWN_STUCK_MAX = 10;

/** The bulk-imports part of /health: degraded while a job is stuck (the rest of the service serves). */
export const bulkImportsHealth = (last: (SweepOutcome & { at: Date; requeuedTotal: number }) | undefined): PartHealth => {
  if (!last) return { status: 'ok', sweep: 'not run yet' };
  const { stuck, unfinished, at, requeuedTotal } = last;
  return {
    status: stuck.length > 0 ? 'degraded' : 'ok',
    unfinished,
    stuck: stuck.length,
    ...(stuck.length > 0 ? { stuckJobs: stuck.slice(0, SHOWN_STUCK_MAX) } : {}),
    requeuedTotal,
    lastSweepAt: at.toISOString(),
  };
};
