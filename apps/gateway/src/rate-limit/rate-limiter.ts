import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import { type RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { RedisConnection } from '../redis';
import { GatewayMetrics } from '../http/gateway-metrics';
import { redisLimiter } from './redis-limiter';

type RateScope = 'token' | 'platform';

/**
 * Fixed windows in Redis (rate-limiter-flexible), shared by every gateway replica: one per API
 * token or agent, and one per platform over all of its tokens and agents, so creating more tokens
 * does not buy more throughput (decision 0022). While Redis is away each replica limits on its own.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = createLogger('gateway:rate-limit');
  private readonly perToken: RateLimiterRedis;
  private readonly perPlatform: RateLimiterRedis;

  constructor(
    redis: RedisConnection,
    private readonly metrics: GatewayMetrics,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    const durationSeconds = config.rateLimitWindowSeconds;
    this.perToken = redisLimiter(redis, { name: 'rate-token', points: config.rateLimitRequests, durationSeconds }, metrics, this.logger);
    this.perPlatform = redisLimiter(
      redis,
      { name: 'rate-platform', points: config.rateLimitPlatformRequests, durationSeconds },
      metrics,
      this.logger,
    );
  }

  /**
   * tokenId: the API token's id, or the agent's for an agent request. The token's window is taken
   * first, so a token refused by its own limit does not spend its platform's budget.
   */
  async consume(tokenId: string, platformId: string): Promise<void> {
    const refusal = (await this.take(this.perToken, tokenId, 'token')) ?? (await this.take(this.perPlatform, platformId, 'platform'));
    if (!refusal) return;
    this.metrics.rateLimited.inc({ scope: refusal.scope });
    const retryAfterSeconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
    const limit = refusal.scope === 'token' ? this.config.rateLimitRequests : this.config.rateLimitPlatformRequests;
    const who = refusal.scope === 'token' ? 'this token' : 'this platform (all of its tokens and agents together)';
    throw new DomainError(
      'RATE_LIMITED',
      'rate_limited',
      `Too many requests for ${who}: the limit is ${limit} per ${this.config.rateLimitWindowSeconds} s. ` +
        `Retry after ${retryAfterSeconds} s.`,
      {
        retryAfterSeconds,
        limit: `requests-per-${refusal.scope}`,
      },
    );
  }

  private async take(limiter: RateLimiterRedis, key: string, scope: RateScope): Promise<{ scope: RateScope; msBeforeNext: number } | null> {
    try {
      await limiter.consume(key);
      return null;
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return { scope, msBeforeNext: refusal.msBeforeNext };
      // Neither Redis nor the in-process fallback answered: a bug, not a reason to refuse traffic.
      this.logger.error({ err: refusal, scope }, 'The rate limiter failed; letting the request through.');
      return null;
    }
  }
}
