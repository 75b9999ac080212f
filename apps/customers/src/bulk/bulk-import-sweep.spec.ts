// Pins down the bulk import sweep's decisions: which unfinished jobs go back on the queue, which
// count as stuck, and what /health says about them.
import { bulkImportsHealth, sweepBulkImports, type UnfinishedImport } from './bulk-import-sweep';

const now = new Date('2026-11-27T12:00:00.000Z');
const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
const job = (id: string, status: UnfinishedImport['status'], idleMinutes: number): UnfinishedImport => ({
  id,
  status,
  updatedAt: minutesAgo(idleMinutes),
});

describe('sweepBulkImports', () => {
  it('given unfinished jobs of which Redis lost some, when swept, then only the lost ones are queued again', () => {
    const outcome = sweepBulkImports(
      [job('Job:a', 'PENDING', 0), job('Job:b', 'PROCESSING', 1), job('Job:c', 'PROCESSING', 2)],
      new Set(['Job:b']),
      now,
      10 * 60_000,
    );
    expect(outcome).toEqual({ requeue: ['Job:a', 'Job:c'], stuck: [], unfinished: 3 });
  });

  it('given a job without progress for the stuck threshold, when swept, then it is stuck whether or not it is queued', () => {
    const outcome = sweepBulkImports(
      [job('Job:a', 'PROCESSING', 10), job('Job:b', 'PENDING', 30), job('Job:c', 'PROCESSING', 9)],
      new Set(['Job:a']),
      now,
      10 * 60_000,
    );
    expect(outcome.stuck).toEqual([
      { id: 'Job:a', status: 'PROCESSING', idleMs: 600_000 },
      { id: 'Job:b', status: 'PENDING', idleMs: 1_800_000 },
    ]);
    expect(outcome.requeue).toEqual(['Job:b', 'Job:c']);
  });

  it('given nothing unfinished, when swept, then nothing is queued or stuck', () => {
    expect(sweepBulkImports([], new Set(), now, 1)).toEqual({ requeue: [], stuck: [], unfinished: 0 });
  });
});

describe('bulkImportsHealth', () => {
  it('is ok before the first sweep and while nothing is stuck', () => {
    expect(bulkImportsHealth(undefined)).toEqual({ status: 'ok', sweep: 'not run yet' });
    expect(bulkImportsHealth({ requeue: ['Job:a'], stuck: [], unfinished: 1, at: now, requeuedTotal: 1 })).toEqual({
      status: 'ok',
      unfinished: 1,
      stuck: 0,
      requeuedTotal: 1,
      lastSweepAt: now.toISOString(),
    });
  });

  it('is degraded while a job is stuck, naming at most ten', () => {
    const stuck = Array.from({ length: 12 }, (_, index) => ({ id: `Job:${index}`, status: 'PROCESSING' as const, idleMs: 700_000 }));
    const health = bulkImportsHealth({ requeue: [], stuck, unfinished: 12, at: now, requeuedTotal: 0 });
    expect(health).toMatchObject({ status: 'degraded', stuck: 12, unfinished: 12 });
    expect(health['stuckJobs']).toHaveLength(10);
  });
});
