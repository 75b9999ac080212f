import { Inject, Injectable } from '@nestjs/common';
import { DomainError, type ErrorBody } from '@corridor/contracts';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { RedisConnection } from '../redis';
import { createLogger } from '@corridor/messaging';

export type StoredOutcome = { status: number; body: unknown };
type Record = { fingerprint: string; outcome?: StoredOutcome };

export type Claim = { kind: 'claimed' } | { kind: 'replay'; outcome: StoredOutcome };

const RETENTION_MS = 24 * 60 * 60 * 1000;
const POLL_INTERVAL_MS = 25;
const MAX_CLAIM_ATTEMPTS = 3;

const unavailable = () =>
  new DomainError(
    'SERVICE_UNAVAILABLE',
    'unavailable',
    'Idempotency records are unavailable; retry shortly with the same Idempotency-Key.',
  );

const conflict = (message: string) => new DomainError('CONFLICT', 'conflict', message);

/**
 * Idempotency records in Redis, one per (scope, key): the scope is the actor's (the platform, or
 * one of its agents; idempotencyScopeKey), so an agent and its platform never share a record. A claim is written with SET NX before
 * the request runs, so of two concurrent duplicates exactly one runs and the other waits for
 * its outcome. A claim without an outcome expires after a bounded time, so a gateway that
 * crashes mid-request does not block the key for a day.
 */
@Injectable()
export class IdempotencyStore {
  private readonly pendingTtlMs: number;

  constructor(
    private readonly redis: RedisConnection,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.pendingTtlMs = Math.max(30_000, config.requestTimeoutMs * 4);
  }

  async claim(scope: string, key: string, fingerprint: string): Promise<Claim> {
    const redisKey = this.redis.key('idem', scope, key);
    const deadline = Date.now() + this.config.requestTimeoutMs + 2_000;
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt += 1) {
      const claimed = await this.guard(() =>
        this.redis.client.set(redisKey, JSON.stringify({ fingerprint }), 'PX', this.pendingTtlMs, 'NX'),
      );
      if (claimed === 'OK') return { kind: 'claimed' };
      const existing = await this.waitForOutcome(redisKey, fingerprint, deadline);
      if (existing) return { kind: 'replay', outcome: existing };
      // The first request released its claim (it failed with a 5xx): try to run this one.
    }
    throw conflict('A request with this Idempotency-Key is still being processed. Retry shortly.');
  }

  async complete(scope: string, key: string, fingerprint: string, outcome: StoredOutcome): Promise<void> {
    const value = JSON.stringify({ fingerprint, outcome } satisfies Record);
    await this.guard(() => this.redis.client.set(this.redis.key('idem', scope, key), value, 'PX', RETENTION_MS));
  }

  async release(scope: string, key: string): Promise<void> {
    await this.guard(() => this.redis.client.del(this.redis.key('idem', scope, key)));
  }

  private async waitForOutcome(redisKey: string, fingerprint: string, deadline: number): Promise<StoredOutcome | undefined> {
    for (;;) {
      const raw = await this.guard(() => this.redis.client.get(redisKey));
      if (raw === null) return undefined;
      const record = JSON.parse(raw) as Record;
      if (record.fingerprint !== fingerprint) {
        throw conflict(
          'This Idempotency-Key was already used with a different request. Use a new key for a new request, or send the first request ' +
            'again unchanged.',
        );
      }
      if (record.outcome) return record.outcome;
      if (Date.now() > deadline) throw conflict('A request with this Idempotency-Key is still being processed. Retry shortly.');
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  }

  private async guard<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      logger.warn({ err: error }, 'Redis refused an idempotency-record command; the request is answered 503 to be retried.');
      throw unavailable();
    }
  }
}

export const isErrorOutcome = (outcome: StoredOutcome): outcome is { status: number; body: ErrorBody } => outcome.status >= 400;

const logger = createLogger('gateway:idempotency');
