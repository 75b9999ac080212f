import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The service's Prometheus metrics, on a registry of its own so two instances in one test process never collide. */
export class WebhookMetrics {
  readonly registry = new Registry();
  readonly deliveries = new Counter({ name: 'corridor_webhook_deliveries_total', help: 'Webhooks acknowledged by the receiver (2xx or 409).', labelNames: ['type'], registers: [this.registry] });
  readonly failures = new Counter({ name: 'corridor_webhook_failures_total', help: 'Webhooks given up on (retry window over, or never retried).', labelNames: ['type'], registers: [this.registry] });
  readonly retries = new Counter({ name: 'corridor_webhook_retries_total', help: 'Attempts that failed and were scheduled again.', labelNames: ['type'], registers: [this.registry] });
  readonly attempts = new Counter({ name: 'corridor_webhook_attempts_total', help: 'HTTP attempts by result class.', labelNames: ['result'], registers: [this.registry] });
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

  constructor(queueDepth: () => Promise<number>) {
    // Process CPU, memory and event-loop lag (process_cpu_seconds_total…): what a delivery costs.
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'corridor_webhook_queue_depth',
      help: 'Deliveries not yet acknowledged nor given up on.',
      registers: [this.registry],
      async collect() {
        this.set(await queueDepth());
      },
    });
  }
}

/** GET /health for container probes and GET /metrics for Prometheus. */
export const startHealthServer = (port: number, metrics: WebhookMetrics): Promise<Server> => {
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/health') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
      return;
    }
    if (request.method === 'GET' && request.url === '/metrics') {
      metrics.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 404, code: 'REFERENCE_NOT_FOUND', message: 'Only GET /health and GET /metrics exist here.' }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve(server));
  });
};
