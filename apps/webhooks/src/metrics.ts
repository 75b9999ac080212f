import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus metrics, on a registry of its own so two instances in one test process
 * never collide. The registry is a metrics source of the service's Observability: the common health
 * server (libs/messaging) serves it on GET /metrics after the process metrics.
 */
export class WebhookMetrics {
  readonly registry = new Registry();
  readonly deliveries = new Counter({
    name: 'corridor_webhook_deliveries_total',
    help: 'Webhooks acknowledged by the receiver (2xx or 409).',
    labelNames: ['type'],
    registers: [this.registry],
  });
  readonly failures = new Counter({
    name: 'corridor_webhook_failures_total',
    help: 'Webhooks given up on (retry window over, or never retried).',
    labelNames: ['type'],
    registers: [this.registry],
  });
  readonly retries = new Counter({
    name: 'corridor_webhook_retries_total',
    help: 'Attempts that failed and were scheduled again.',
    labelNames: ['type'],
    registers: [this.registry],
  });
  readonly attempts = new Counter({
    name: 'corridor_webhook_attempts_total',
    help: 'HTTP attempts by result class.',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'corridor_webhook_delivery_latency_seconds',
    help: 'Duration of one HTTP delivery attempt.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly endToEnd = new Histogram({
    name: 'corridor_webhook_event_to_delivery_seconds',
    help: 'From the event occurring to the receiver acknowledging its webhook.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600],
    registers: [this.registry],
  });

  readonly circuitState = new Gauge({
    name: 'corridor_webhook_circuit_state',
    help: "1 for each platform whose endpoint's circuit is OPEN or HALF_OPEN in this process (closed circuits are not listed).",
    labelNames: ['platform_id', 'state'],
    registers: [this.registry],
  });
  readonly circuitTransitions = new Counter({
    name: 'corridor_webhook_circuit_transitions_total',
    help: 'Circuit breaker transitions of webhook endpoints, by the state entered.',
    labelNames: ['state'],
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({
    name: 'corridor_webhook_in_flight',
    help: 'Deliveries sending or holding a slot, by lane.',
    labelNames: ['lane'],
    registers: [this.registry],
  });
  readonly deferred = new Counter({
    name: 'corridor_webhook_deferred_total',
    help: 'Deliveries held back because their platform had as many in flight as it may (WEBHOOK_PLATFORM_CONCURRENCY), by lane.',
    labelNames: ['lane'],
    registers: [this.registry],
  });

  constructor(queueDepth: () => Promise<number>, oldestSendable: () => Promise<number>) {
    new Gauge({
      name: 'corridor_webhook_queue_depth',
      help: 'Deliveries not yet acknowledged nor given up on.',
      registers: [this.registry],
      async collect() {
        this.set(await queueDepth());
      },
    });
    new Gauge({
      name: 'corridor_webhook_oldest_sendable_seconds',
      help: 'How long the longest-waiting due webhook that is first in line for its resource has waited to be sent (0: none waits).',
      registers: [this.registry],
      async collect() {
        this.set(await oldestSendable());
      },
    });
  }
}
