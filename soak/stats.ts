// What the soak measured: every HTTP attempt by operation (status, latency), every 5xx with when
// it was in flight, and the chaos windows those 5xx are judged against.

export type Attempt = { operation: string; status: number; startedAt: number; endedAt: number };
export type ChaosWindow = { app: string; replica: number; killedAt: number; healthyAt?: number; until?: number };

type OperationStats = { latenciesMs: number[]; attempts: number; succeeded: number; retried: number; byStatus: Map<string, number> };

export const percentile = (sorted: readonly number[], fraction: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;

export class SoakStats {
  readonly operations = new Map<string, OperationStats>();
  readonly serverErrors: Attempt[] = [];
  readonly windows: ChaosWindow[] = [];
  /** Failures of the workload itself (an answer the scenario did not expect), first few kept per kind. */
  readonly surprises = new Map<string, { count: number; examples: string[] }>();

  private of(operation: string): OperationStats {
    let stats = this.operations.get(operation);
    if (!stats) {
      stats = { latenciesMs: [], attempts: 0, succeeded: 0, retried: 0, byStatus: new Map() };
      this.operations.set(operation, stats);
    }
    return stats;
  }

  /** One HTTP attempt; status 0 is a connection error. */
  attempt(attempt: Attempt): void {
    const stats = this.of(attempt.operation);
    stats.attempts += 1;
    const status = attempt.status === 0 ? 'conn' : String(attempt.status);
    stats.byStatus.set(status, (stats.byStatus.get(status) ?? 0) + 1);
    if (attempt.status === 0 || attempt.status >= 500) this.serverErrors.push(attempt);
  }

  /** One operation as the virtual user saw it, retries included. */
  completed(operation: string, latencyMs: number, ok: boolean, retried: boolean): void {
    const stats = this.of(operation);
    stats.latenciesMs.push(latencyMs);
    if (ok) stats.succeeded += 1;
    if (retried) stats.retried += 1;
  }

  /** Answers that are a scenario's expected outcome though not a 2xx (a card authorization declined), by kind. */
  readonly outcomes = new Map<string, number>();

  outcome(kind: string): void {
    this.outcomes.set(kind, (this.outcomes.get(kind) ?? 0) + 1);
  }

  surprise(kind: string, detail: string): void {
    const entry = this.surprises.get(kind) ?? { count: 0, examples: [] };
    entry.count += 1;
    if (entry.examples.length < 3) entry.examples.push(detail.slice(0, 300));
    this.surprises.set(kind, entry);
  }

  /** True when the attempt overlapped a chaos window (kill → restarted replica healthy + grace). */
  inChaosWindow(attempt: Attempt): boolean {
    return this.windows.some(
      (window) => attempt.endedAt >= window.killedAt && attempt.startedAt <= (window.until ?? Number.POSITIVE_INFINITY),
    );
  }

  summary(durationSeconds: number) {
    return [...this.operations.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([operation, stats]) => {
        const sorted = [...stats.latenciesMs].sort((a, b) => a - b);
        return {
          operation,
          count: sorted.length,
          succeeded: stats.succeeded,
          retried: stats.retried,
          perSecond: Number((sorted.length / durationSeconds).toFixed(2)),
          p50Ms: Math.round(percentile(sorted, 0.5)),
          p99Ms: Math.round(percentile(sorted, 0.99)),
          attempts: stats.attempts,
          byStatus: Object.fromEntries([...stats.byStatus.entries()].sort()),
        };
      });
  }
}
