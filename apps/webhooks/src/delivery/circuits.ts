import { createLogger } from '@corridor/messaging';
import type { WebhookMetrics } from '../metrics';
import { type AttemptEnd, afterAttempt, beforeAttempt, type BreakerOptions, type Circuit, CLOSED, type Permission } from './fairness';

type Entry = { endpoint: string; circuit: Circuit };

/**
 * The circuits of this process's platforms (rules in fairness.ts): one per platform, for the
 * endpoint it has now, so a new endpoint starts closed. Only circuits that are not closed with a
 * clean slate are kept. Every change of state is logged and shown in /metrics.
 */
export class Circuits {
  private readonly logger = createLogger('webhooks:circuits');
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly options: BreakerOptions,
    private readonly metrics: WebhookMetrics,
  ) {}

  permit(platformId: string, endpoint: string, nowMs: number): Permission {
    const permission = beforeAttempt(this.circuitOf(platformId, endpoint), nowMs, this.options);
    this.set(platformId, endpoint, permission.circuit);
    return permission;
  }

  record(platformId: string, endpoint: string, end: AttemptEnd, nowMs: number): void {
    this.set(platformId, endpoint, afterAttempt(this.circuitOf(platformId, endpoint), end, nowMs, this.options));
  }

  private circuitOf(platformId: string, endpoint: string): Circuit {
    const entry = this.entries.get(platformId);
    return entry && entry.endpoint === endpoint ? entry.circuit : CLOSED;
  }

  private set(platformId: string, endpoint: string, circuit: Circuit): void {
    const previous = this.entries.get(platformId);
    // A platform that changed its endpoint leaves the old one's circuit behind.
    if (previous && previous.endpoint !== endpoint) {
      this.metrics.circuitState.remove({ platform_id: platformId, state: previous.circuit.state });
    }
    const before = this.circuitOf(platformId, endpoint);
    if (circuit.state === 'CLOSED' && circuit.timeouts === 0) this.entries.delete(platformId);
    else this.entries.set(platformId, { endpoint, circuit });
    if (before.state === circuit.state) return;
    this.metrics.circuitTransitions.inc({ state: circuit.state });
    this.metrics.circuitState.remove({ platform_id: platformId, state: before.state });
    if (circuit.state !== 'CLOSED') this.metrics.circuitState.set({ platform_id: platformId, state: circuit.state }, 1);
    const opened = circuit.state === 'OPEN' ? { until: new Date(circuit.untilMs).toISOString(), trips: circuit.trips } : {};
    const fields = { platformId, endpoint, from: before.state, to: circuit.state, ...opened };
    const message =
      circuit.state === 'OPEN'
        ? "A webhook endpoint keeps timing out: its circuit is open, and its platform's webhooks are not sent until a probe is answered."
        : circuit.state === 'HALF_OPEN'
          ? 'Probing a webhook endpoint whose circuit was open, with the shorter timeout.'
          : 'A webhook endpoint answered again: its circuit is closed.';
    if (circuit.state === 'OPEN') this.logger.warn(fields, message);
    else this.logger.info(fields, message);
  }
}
