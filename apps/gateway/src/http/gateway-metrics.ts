import { Counter, Histogram, Registry } from 'prom-client';

// Buckets for an edge whose answers range from a cached refusal (sub-millisecond) to a command
// that waits on several services (the default request timeout is 5 s).
const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The gateway's one registry, served on its metrics port (GATEWAY_METRICS_PORT) beside the process
 * and NATS metrics: HTTP requests by route template and status, Idempotency-Key outcomes, and what
 * the edge refuses to protect the services (decision 0022). Route templates, never raw paths, so
 * ids in paths cannot blow up the series count; a path no route matched counts as `unmatched`.
 */
export class GatewayMetrics {
  readonly registry = new Registry();

  readonly httpRequests = new Histogram({
    name: 'corridor_http_request_duration_seconds',
    help:
      'HTTP requests the gateway answered, from arrival to the last byte: by method, route template and status (rate: _count; ' +
      'errors: status 5xx).',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  readonly idempotency = new Counter({
    name: 'corridor_gateway_idempotency_total',
    help:
      'POSTs with an Idempotency-Key by outcome: claimed (first of its key, ran), replayed (answered from the record), ' +
      ('conflict (in flight or another request under the key), released (not a decided outcome: the key is free again), unrecorded (the ' +
        'record could not be written).'),
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  readonly authFailures = new Counter({
    name: 'corridor_gateway_auth_failures_total',
    help:
      'Failed Basic authentications: wrong_credentials (the platform service said 401), ' +
      'known_bad (a pair that just failed, answered from memory), malformed.',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  readonly authLimited = new Counter({
    name: 'corridor_gateway_auth_limited_total',
    help: 'Basic authentications refused 429 before the NATS hop because their source address or client id failed too often.',
    labelNames: ['scope'],
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'corridor_gateway_rate_limited_total',
    help: 'Requests refused 429 by the rate limit of their token (or agent) or of their platform.',
    labelNames: ['scope'],
    registers: [this.registry],
  });

  readonly limiterFallbacks = new Counter({
    name: 'corridor_gateway_limiter_fallbacks_total',
    help: 'Limiter calls answered by the in-process fallback because Redis did not answer.',
    registers: [this.registry],
  });
}
