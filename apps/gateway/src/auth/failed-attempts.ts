import { Inject, Injectable } from '@nestjs/common';
import { createLogger } from '@corridor/messaging';
import { LRUCache } from 'lru-cache';
import type { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { RedisConnection } from '../redis';
import { GatewayMetrics } from '../http/gateway-metrics';
import { redisLimiter } from '../rate-limit/redis-limiter';
import type { FailureCount } from './auth-attempts';

const NEGATIVE_CACHE_MAX_ENTRIES = 10_000;

/** An attempt counted as a failure before it was judged (FailedAttempts.reserve). */
export type Reservation = { kind: 'reserved'; address: string; clientId: string; byAddress: RateLimiterRes; byClient: RateLimiterRes };
/** An attempt refused because the reservation went past a limit: milliseconds until each is under it again. */
export type Refused = { kind: 'refused'; addressBlockedMs: number; clientBlockedMs: number };

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

  /**
   * Counts an attempt as a failure before it is judged, atomically in Redis, so a concurrent burst of
   * guesses from one address or against one client id is judged only up to the limits: the attempts
   * past them are refused (the count they took is given back). `settle` gives the count back when
   * the attempt was not the caller's failure (it verified, or the platform service did not answer).
   */
  async reserve(address: string, clientId: string): Promise<Reservation | Refused> {
    const key = clientId.slice(0, 64);
    const [byAddress, byClient] = await Promise.all([this.byAddress.penalty(address), this.byClient.penalty(key)]);
    const reservation: Reservation = { kind: 'reserved', address, clientId: key, byAddress, byClient };
    const over = (state: RateLimiterRes, points: number) => (state.consumedPoints > points ? Math.max(1, state.msBeforeNext) : 0);
    const addressBlockedMs = over(byAddress, this.config.authFailuresPerAddress);
    const clientBlockedMs = over(byClient, this.config.authFailuresPerClient);
    if (addressBlockedMs === 0 && clientBlockedMs === 0) return reservation;
    await this.giveBack(reservation);
    return { kind: 'refused', addressBlockedMs, clientBlockedMs };
  }

  /** The reserved count stays when the attempt failed for the caller's fault (`failure`), else it is given back. */
  async settle(reservation: Reservation, failure: FailureCount | null, pairKey: string): Promise<void> {
    if (!failure) return this.giveBack(reservation);
    await this.note(failure, { address: reservation.address, clientId: reservation.clientId, pairKey }, reservation);
  }

  private async giveBack(reservation: Reservation): Promise<void> {
    await Promise.all([this.byAddress.reward(reservation.address), this.byClient.reward(reservation.clientId)]);
  }

  async record(failure: FailureCount, at: { address: string; clientId?: string; pairKey?: string }): Promise<void> {
    const clientId = at.clientId?.slice(0, 64);
    const [byAddress, byClient] = await Promise.all([
      failure.address ? this.byAddress.penalty(at.address) : undefined,
      failure.client && clientId !== undefined ? this.byClient.penalty(clientId) : undefined,
    ]);
    await this.note(failure, at, { byAddress, byClient });
  }

  private async note(
    failure: FailureCount,
    at: { address: string; clientId?: string; pairKey?: string },
    { byAddress, byClient }: { byAddress?: RateLimiterRes; byClient?: RateLimiterRes },
  ): Promise<void> {
    this.metrics.authFailures.inc({ reason: failure.reason });
    if (failure.rememberPair && at.pairKey) this.badPairs.set(at.pairKey, true);
    const clientId = at.clientId?.slice(0, 64);
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
