import { Histogram, Registry } from 'prom-client';

type NatsMetrics = { registry: Registry; requests: Histogram<'subject' | 'outcome'>; handlers: Histogram<'subject' | 'outcome'> };
let metrics: NatsMetrics | undefined;

// Buckets from a loopback hop (~0.3 ms) to the default request timeout (5 s).
const BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The NATS request-reply histograms of this process, both sides, in one registry (a metrics source for /metrics). */
export const natsMetrics = (): NatsMetrics => {
  if (!metrics) {
    const registry = new Registry();
    metrics = {
      registry,
      requests: new Histogram({
        name: 'corridor_nats_request_duration_seconds',
        help:
          'NATS requests this process sent, until the reply: by subject and outcome (ok, error: a refusal or failure reply, ' +
          'unavailable: no responder or timeout).',
        labelNames: ['subject', 'outcome'],
        buckets: BUCKETS_SECONDS,
        registers: [registry],
      }),
      handlers: new Histogram({
        name: 'corridor_nats_handler_duration_seconds',
        help: 'NATS requests this service answered, from receipt to the reply: by subject and outcome (ok, error).',
        labelNames: ['subject', 'outcome'],
        buckets: BUCKETS_SECONDS,
        registers: [registry],
      }),
    };
  }
  return metrics;
};
