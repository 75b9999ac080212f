import { Inject, Injectable } from '@nestjs/common';
import { createLogger } from '@corridor/messaging';
import { LRUCache } from 'lru-cache';
import type { RateLimiterRedis } from 'rate-limiter-flexible';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { RedisConnection } from '../redis';
import { GatewayMetrics } from '../http/gateway-metrics';
import { redisLimiter } from '../rate-limit/redis-limiter';
import type { FailureCount } from './auth-attempts';

const NEGATIVE_CACHE_MAX_ENTRIES = 10_000;

/**
 * The memory of failed Basic authentications (decision 0022): a failure counter per source address
 * and per client id in Redis (shared by every gateway replica, a fixed window), and a short
 * per-process negative cache of (clientId, secret hash) pairs that just failed. Keys are hashes
 * or client ids; no secret is stored.
 */
@Injectable()
export class FailedAttempts {
  private readonly logger = createLogger('gateway:auth');
  private readonly byAddress: RateLimiterRedis;
  private readonly byClient: RateLimiterRedis;
  private readonly badPairs: LRUCache<string, true>;

  constructor(
    redis: RedisConnection,
    private readonly metrics: GatewayMetrics,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    const durationSeconds = config.authFailureWindowSeconds;
    this.byAddress = redisLimiter(
      redis,
      { name: 'auth-failures-address', points: config.authFailuresPerAddress, durationSeconds },
      metrics,
      this.logger,
    );
    this.byClient = redisLimiter(
      redis,
      { name: 'auth-failures-client', points: config.authFailuresPerClient, durationSeconds },
      metrics,
      this.logger,
    );
    this.badPairs = new LRUCache({ max: NEGATIVE_CACHE_MAX_ENTRIES, ttl: config.authNegativeCacheSeconds * 1000 });
  }

  isKnownBad(pairKey: string): boolean {
    return this.badPairs.has(pairKey);
  }

  /** Milliseconds until the address and the client id are under their failure limits again (0: they are). */
  async blockedMs(address: string, clientId: string | undefined): Promise<{ addressBlockedMs: number; clientBlockedMs: number }> {
    const [addressBlockedMs, clientBlockedMs] = await Promise.all([
      this.remaining(this.byAddress, address, this.config.authFailuresPerAddress),
      clientId === undefined ? 0 : this.remaining(this.byClient, clientId.slice(0, 64), this.config.authFailuresPerClient),
    ]);
    return { addressBlockedMs, clientBlockedMs };
  }

  async record(failure: FailureCount, at: { address: string; clientId?: string; pairKey?: string }): Promise<void> {
    this.metrics.authFailures.inc({ reason: failure.reason });
    if (failure.rememberPair && at.pairKey) this.badPairs.set(at.pairKey, true);
    const clientId = at.clientId?.slice(0, 64);
    const [byAddress, byClient] = await Promise.all([
      failure.address ? this.byAddress.penalty(at.address) : undefined,
      failure.client && clientId !== undefined ? this.byClient.penalty(clientId) : undefined,
    ]);
    // Without secrets: the client id is the Basic user name, not a secret; the secret never appears.
    this.logger.info({ reason: failure.reason, address: at.address, clientId }, 'Basic authentication failed.');
    const window = `${this.config.authFailureWindowSeconds} s`;
    if (byAddress?.consumedPoints === this.config.authFailuresPerAddress) {
      this.logger.warn(
        { address: at.address, failures: byAddress.consumedPoints, window },
        'A source address reached its failed-authentication limit; its attempts are refused 429 until the window ends.',
      );
    }
    if (byClient?.consumedPoints === this.config.authFailuresPerClient) {
      this.logger.warn(
        { clientId, failures: byClient.consumedPoints, window },
        'A client id reached its failed-authentication limit; attempts with it are refused 429 until the window ends, ' +
          'except credentials that verified before.',
      );
    }
  }

  private async remaining(limiter: RateLimiterRedis, key: string, points: number): Promise<number> {
    const state = await limiter.get(key);
    return state && state.consumedPoints >= points ? state.msBeforeNext : 0;
  }
}
