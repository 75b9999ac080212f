import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';

/**
 * What the gateway refuses to protect the services (decision 0022), on GET /metrics: failed
 * authentications by reason, attempts refused before the NATS hop by what was limited, and requests
 * refused by the token and platform rate limits.
 */
@Injectable()
export class AbuseMetrics {
  readonly registry = new Registry();

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
