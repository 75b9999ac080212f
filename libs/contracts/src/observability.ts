// What a service reports about its own parts (projections, outbox, consumers, PostgreSQL, NATS,
// Redis) to its /health and /metrics. Plain data and functions: the health server (libs/messaging)
// reads it, the parts (libs/event-store, consumers, apps) register themselves in it.

/** Nest injection token of the one Observability of a service process. */
export const OBSERVABILITY = 'CORRIDOR_OBSERVABILITY';

/**
 * ok: the part works. degraded: the part is halted or behind but the rest of the service serves
 * (a projection stopped on a poison event): still ready, and named in /health. down: the service
 * cannot serve (its database or NATS is unreachable): not ready.
 */
export type HealthStatus = 'ok' | 'degraded' | 'down';

export type PartHealth = { status: HealthStatus; [detail: string]: unknown };

export type ObservedPart = {
  /** e.g. `postgres`, `nats`, `redis`, `projections`, `outbox`, `consumer:accounts-open-accounts`. */
  name: string;
  /** Answers quickly (a probe waits for it); a throw counts as down with the error's message. */
  health: () => Promise<PartHealth> | PartHealth;
};

/** Prometheus text exposition of one registry (a prom-client `Registry` fits this shape). */
export type MetricsSource = { metrics: () => Promise<string> };

export class Observability {
  private readonly partsByName = new Map<string, ObservedPart>();
  private readonly sources = new Set<MetricsSource>();

  /** Registers (or replaces, by name) a part that /health reports. */
  addPart(part: ObservedPart): void {
    this.partsByName.set(part.name, part);
  }

  removePart(name: string): void {
    this.partsByName.delete(name);
  }

  addMetrics(source: MetricsSource): void {
    this.sources.add(source);
  }

  removeMetrics(source: MetricsSource): void {
    this.sources.delete(source);
  }

  get parts(): ObservedPart[] {
    return [...this.partsByName.values()];
  }

  get metricsSources(): MetricsSource[] {
    return [...this.sources];
  }

  /** Every part's health; the overall status is the worst of them. */
  async report(timeoutMs = 2_000): Promise<{ status: HealthStatus; parts: Record<string, PartHealth> }> {
    const entries = await Promise.all(
      this.parts.map(async (part): Promise<[string, PartHealth]> => {
        try {
          const health = await Promise.race([
            Promise.resolve(part.health()),
            new Promise<PartHealth>((resolve) =>
              setTimeout(() => resolve({ status: 'down', error: `no answer within ${timeoutMs} ms` }), timeoutMs).unref?.(),
            ),
          ]);
          return [part.name, health];
        } catch (error) {
          return [part.name, { status: 'down', error: error instanceof Error ? error.message : String(error) }];
        }
      }),
    );
    const rank: Record<HealthStatus, number> = { ok: 0, degraded: 1, down: 2 };
    let status: HealthStatus = 'ok';
    for (const [, health] of entries) if (rank[health.status] > rank[status]) status = health.status;
    return { status, parts: Object.fromEntries(entries) };
  }
}
