import type { Logger } from 'pino';
import { type IRateLimiterOptions, RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisConnection } from '../redis';
import type { GatewayMetrics } from '../http/gateway-metrics';

const FALLBACK_LOG_INTERVAL_MS = 10_000;

/**
 * The in-process limiter that answers while Redis does not (rate-limiter-flexible's insurance
 * limiter): limits stay on per replica instead of every request being let through or refused.
 * Each fallback is counted, and logged at most every 10 s so an outage is loud but not a flood.
 */
class FallbackLimiter extends RateLimiterMemory {
  private loggedAt = 0;

  constructor(
    options: IRateLimiterOptions,
    private readonly name: string,
    private readonly metrics: GatewayMetrics,
    private readonly logger: Logger,
  ) {
    super(options);
  }

  override consume(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.noteFallback();
    return super.consume(key, points, options);
  }

  override penalty(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.noteFallback();
    return super.penalty(key, points, options);
  }

  override get(key: string | number, options?: Record<string, unknown>): Promise<RateLimiterRes | null> {
    this.noteFallback();
    return super.get(key, options);
  }

  private noteFallback(): void {
    this.metrics.limiterFallbacks.inc();
    const now = Date.now();
    if (now - this.loggedAt < FALLBACK_LOG_INTERVAL_MS) return;
    this.loggedAt = now;
    this.logger.warn({ limiter: this.name }, 'Redis did not answer the limiter; limiting in this process only until it does.');
  }
}

export type LimiterOptions = { name: string; points: number; durationSeconds: number };

/** A fixed-window counter per key in Redis, shared by every gateway replica, insured by a per-process one. */
export const redisLimiter = (
  redis: RedisConnection,
  options: LimiterOptions,
  metrics: GatewayMetrics,
  logger: Logger,
): RateLimiterRedis => {
  const window = { points: options.points, duration: options.durationSeconds };
  return new RateLimiterRedis({
    storeClient: redis.client,
    keyPrefix: redis.key('limit', options.name),
    ...window,
    // While the connection is down the fallback answers at once, not after the command timeout.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new FallbackLimiter({ ...window, keyPrefix: `fallback-${options.name}` }, options.name, metrics, logger),
  });
};
