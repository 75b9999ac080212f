import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import type { Pool } from 'pg';
import { CLOCK, type Clock, type WebhookType } from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import type { WebhooksServiceConfig } from '../config';
import { WebhookMetrics } from '../metrics';
import { signatureHeader } from '../signing/signing-key';
import { SigningKeys } from '../signing/signing-keys';
import { type Claimed, claimDelivery, type DueDelivery, dueHeads, recordAttempt } from './delivery-store';
import { postWebhook, type PostResult } from './post-webhook';
import { nextStep } from './retry-schedule';

export const WEBHOOKS_CONFIG = 'WEBHOOKS_CONFIG';
export const WEBHOOKS_POOL = 'WEBHOOKS_POOL';

const QUEUE_NAME = 'webhook-deliveries';
const TICK_BATCH = 1_000;
// A lease outlives one attempt (timeout plus margin), so a killed process's delivery is freed soon after.
const LEASE_MARGIN_MS = 5_000;
// A job this process enqueued is not offered to BullMQ again for this long (each offer costs a
// Redis round trip); after it, or after Redis reconnects (jobs may be gone), it is offered again.
const ENQUEUED_MEMORY_MS = 30_000;

/**
 * One job id per (delivery, attempt): enqueuing the same due attempt twice is a no-op in BullMQ,
 * while the next attempt never collides with the finishing job of the previous one. BullMQ
 * forbids ':' in custom ids.
 */
export const jobIdOf = (deliveryId: string, attemptCount: number): string => `${deliveryId.replace(/:/g, '-')}-${attemptCount + 1}`;

/**
 * Sends deliveries. PostgreSQL decides what is due (times from the injected Clock); BullMQ carries
 * the work to the workers. tick() enqueues every due delivery that is first in line for its
 * resource: it is also the sweeper, since a job lost with Redis is simply enqueued again, and a
 * job enqueued twice is harmless because claimDelivery lets only one attempt take the row.
 */
@Injectable()
export class Dispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('webhooks:dispatcher');
  private queue?: Queue;
  private worker?: Worker;
  private connections: IORedis[] = [];
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private tickAgain = false;
  /** Counts tick() calls: a tick asked for while an attempt was being recorded may have missed that attempt's end. */
  private tickRequests = 0;
  private readonly enqueued = new Map<string, number>();

  constructor(
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksServiceConfig,
    @Inject(WEBHOOKS_POOL) private readonly pool: Pool,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly keys: SigningKeys,
    private readonly metrics: WebhookMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const connection = () => {
      // BullMQ workers need maxRetriesPerRequest null: a command waits for Redis to come back.
      const redis = new IORedis(this.config.redisUrl, { maxRetriesPerRequest: null, enableReadyCheck: true });
      redis.on('error', (error) => this.logger.warn({ err: error }, 'Redis connection error; reconnecting.'));
      this.connections.push(redis);
      return redis;
    };
    const prefix = `${this.config.redisKeyPrefix}bull`;
    const queueConnection = connection();
    let connectedBefore = false;
    queueConnection.on('ready', () => {
      // A Redis that comes back may have lost its jobs: forget what was enqueued so the next tick offers it all again.
      if (connectedBefore) this.enqueued.clear();
      connectedBefore = true;
    });
    this.queue = new Queue(QUEUE_NAME, { connection: queueConnection, prefix });
    this.worker = new Worker(QUEUE_NAME, async (job) => {
      try {
        await this.attempt(String(job.data.id));
      } finally {
        if (job.id) this.enqueued.delete(job.id);
      }
    }, {
      connection: connection(),
      prefix,
      concurrency: this.config.concurrency,
      // A job left active by a killed process comes back quickly; claimDelivery keeps it single.
      stalledInterval: 5_000,
      maxStalledCount: 1_000,
    });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'Worker error.'));
    if (this.config.tickIntervalMs > 0) {
      this.timer = setInterval(() => void this.tick().catch((error: unknown) => this.logger.warn({ err: error }, 'Tick failed.')), this.config.tickIntervalMs);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking?.catch(() => undefined);
    await this.worker?.close();
    await this.queue?.close();
    for (const redis of this.connections) redis.disconnect();
  }

  /** Enqueues what is due now; concurrent calls coalesce into one more run. */
  tick(): Promise<void> {
    this.tickRequests += 1;
    if (this.ticking) {
      this.tickAgain = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      try {
        do {
          this.tickAgain = false;
          await this.enqueue(await dueHeads(this.pool, this.clock.now(), TICK_BATCH));
        } while (this.tickAgain);
      } finally {
        this.ticking = undefined;
      }
    })();
    return this.ticking;
  }

  private async enqueue(due: DueDelivery[]): Promise<void> {
    if (due.length === 0 || !this.queue) return;
    const nowMs = Date.now();
    const jobs = due
      .map(({ id, attemptCount }) => ({ id, jobId: jobIdOf(id, attemptCount) }))
      .filter(({ jobId }) => nowMs - (this.enqueued.get(jobId) ?? 0) > ENQUEUED_MEMORY_MS);
    if (jobs.length === 0) return;
    for (const { jobId } of jobs) this.enqueued.set(jobId, nowMs);
    await this.queue.addBulk(jobs.map(({ id, jobId }) => ({ name: 'deliver', data: { id }, opts: { jobId, removeOnComplete: true, removeOnFail: true } })));
  }

  /** One attempt at one delivery; does nothing when the delivery is not (or no longer) due. */
  async attempt(id: string): Promise<void> {
    const now = this.clock.now();
    const claimed = await claimDelivery(this.pool, id, now, new Date(now.getTime() + this.config.requestTimeoutMs + LEASE_MARGIN_MS));
    if (!claimed) return;
    const result = await this.send(claimed, now);
    const windowStart = claimed.first_attempt_at ?? now;
    const step = nextStep({ result, retried: claimed.retried, attemptsMade: claimed.attempt_count, windowStart, now: this.clock.now() });
    const outcome = step.kind === 'retry' ? { status: 'PENDING' as const, nextAttemptAt: step.at } : { status: step.kind === 'delivered' ? ('DELIVERED' as const) : ('FAILED' as const) };
    const url = claimed.webhook_endpoint ?? '';
    const ticksBefore = this.tickRequests;
    const { morePending } = await recordAttempt(
      this.pool,
      id,
      { attempt: claimed.attempt_count, at: now, url, latencyMs: result.latencyMs, ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}), ...(result.error ? { error: result.error } : {}) },
      outcome,
      this.clock.now(),
    );
    this.observe(claimed.type, step.kind, result, claimed.occurred_at);
    // The next webhook of this resource was waiting for this one to finish. The look-up is skipped
    // when the resource had nothing else pending, unless new deliveries were written meanwhile
    // (their tick may have run before this attempt's record was committed).
    if (step.kind !== 'retry' && (morePending || this.tickRequests !== ticksBefore)) await this.enqueue(await dueHeads(this.pool, this.clock.now(), 1, { platformId: claimed.platform_id, resourceId: claimed.resource_id }));
  }

  private async send(claimed: Claimed, now: Date): Promise<PostResult> {
    if (!claimed.webhook_endpoint) return { error: 'The platform has no webhookEndpoint configured.', latencyMs: 0 };
    const signature = signatureHeader(claimed.body, await this.keys.privateKey(claimed.platform_id, now));
    return postWebhook(claimed.webhook_endpoint, claimed.body, signature, this.config.requestTimeoutMs);
  }

  private observe(type: WebhookType, step: 'delivered' | 'failed' | 'retry', result: PostResult, occurredAt: Date): void {
    this.metrics.latency.observe(result.latencyMs / 1000);
    this.metrics.attempts.inc({ result: result.statusCode === undefined ? 'error' : `${Math.floor(result.statusCode / 100)}xx` });
    if (step === 'delivered') {
      this.metrics.deliveries.inc({ type });
      this.metrics.endToEnd.observe(Math.max(0, Date.now() - occurredAt.getTime()) / 1000);
    } else if (step === 'failed') this.metrics.failures.inc({ type });
    else this.metrics.retries.inc({ type });
  }
}
