import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { RedisConnection } from '../redis';

// A fixed window per token: one round trip increments the counter and, on the window's first
// request, starts its expiry; the remaining time tells the client when to come back.
const FIXED_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

@Injectable()
export class RateLimiter {
  private readonly logger = createLogger('gateway:rate-limit');

  constructor(
    private readonly redis: RedisConnection,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async consume(tokenId: string): Promise<void> {
    const windowMs = this.config.rateLimitWindowSeconds * 1000;
    let result: [number, number];
    try {
      result = (await this.redis.client.eval(FIXED_WINDOW, 1, this.redis.key('rate', tokenId), windowMs)) as [number, number];
    } catch (error) {
      // Limiting protects the services; refusing every request while Redis is away would do
      // more harm than letting them through for a moment.
      this.logger.warn({ err: error }, 'Rate limiter unavailable; letting the request through.');
      return;
    }
    const [count, ttlMs] = result;
    if (count <= this.config.rateLimitRequests) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
    throw new DomainError('RATE_LIMITED', 'rate_limited', `Too many requests for this token: the limit is ${this.config.rateLimitRequests} per ${this.config.rateLimitWindowSeconds} s. Retry after ${retryAfterSeconds} s.`, {
      retryAfterSeconds,
    });
  }
}
