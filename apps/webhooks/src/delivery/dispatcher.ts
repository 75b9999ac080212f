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
import { type Claimed, claimDeliveries, type DueDelivery, dueHeads, type FinishedAttempt, nextHeads, type Outcome, type Recorded, recordAttempts } from './delivery-store';
import { APPROVAL_HOOK } from '../kinds/incoming-payment';
import { ApprovalReporter } from './approval-report';
import { postWebhook, type PostResult, resolveWithDns, type TargetPolicy } from './post-webhook';
import { nextStep } from './retry-schedule';

export const WEBHOOKS_CONFIG = 'WEBHOOKS_CONFIG';
export const WEBHOOKS_POOL = 'WEBHOOKS_POOL';

const QUEUE_NAME = 'webhook-deliveries';
const TICK_BATCH = 1_000;
// A lease outlives one attempt (timeout plus margin), so a killed process's delivery is freed soon after.
const LEASE_MARGIN_MS = 5_000;
// A delivery this process enqueued is not offered to BullMQ again for this long (each offer costs
// a Redis round trip); after it, or after Redis reconnects (jobs may be gone), it is offered again.
const ENQUEUED_MEMORY_MS = 30_000;
// Finished attempts written by one statement at most.
const RECORD_BATCH = 500;

/**
 * Key of one due attempt of one delivery: a delivery offered again for the same attempt while its
 * job is pending is not enqueued twice by this process.
 */
export const attemptKeyOf = (deliveryId: string, attemptCount: number): string => `${deliveryId}#${attemptCount + 1}`;

/** A counting semaphore, first come first served. */
class Slots {
  private readonly waiting: { count: number; resume: () => void }[] = [];

  constructor(private free: number) {}

  acquire(count: number): Promise<void> {
    if (this.waiting.length === 0 && this.free >= count) {
      this.free -= count;
      return Promise.resolve();
    }
    return new Promise((resume) => this.waiting.push({ count, resume }));
  }

  release(count: number): void {
    this.free += count;
    while (this.waiting.length > 0 && this.free >= this.waiting[0]!.count) {
      const next = this.waiting.shift()!;
      this.free -= next.count;
      next.resume();
    }
  }
}

type JobData = { deliveries: { id: string; key: string }[] };
type Waiting = { finished: FinishedAttempt; done: (error?: unknown) => void };

/**
 * Sends deliveries. PostgreSQL decides what is due (times from the injected Clock); BullMQ carries
 * the work to the workers, a batch of due deliveries per job. tick() enqueues every due delivery
 * that is first in line for its resource: it is also the sweeper, since a job lost with Redis is
 * simply enqueued again, and a delivery enqueued twice is harmless because claimDeliveries lets
 * only one attempt take the row. Finished attempts are written in batches (group commit), and the
 * next webhook of a resource is looked up only when the resource had one pending.
 */
@Injectable()
export class Dispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('webhooks:dispatcher');
  private queue?: Queue<JobData>;
  private worker?: Worker<JobData>;
  private connections: IORedis[] = [];
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private tickAgain = false;
  /** Counts ticks and new deliveries offered: one asked for while attempts were being recorded may have missed their end. */
  private offers = 0;
  private readonly enqueued = new Map<string, number>();
  private readonly sendSlots: Slots;
  private readonly toRecord: Waiting[] = [];
  private recording?: Promise<void>;
  private recordingActive = false;

  constructor(
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksServiceConfig,
    @Inject(WEBHOOKS_POOL) private readonly pool: Pool,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly keys: SigningKeys,
    private readonly metrics: WebhookMetrics,
    private readonly approvals: ApprovalReporter,
  ) {
    this.sendSlots = new Slots(config.concurrency);
  }

  /** The queue's Redis connection (for the health part), once the app has bootstrapped. */
  get redis(): IORedis | undefined {
    return this.connections[0];
  }

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
    this.queue = new Queue<JobData>(QUEUE_NAME, { connection: queueConnection, prefix });
    this.worker = new Worker<JobData>(QUEUE_NAME, async (job) => {
      // A job of the previous shape ({ id }) carries one delivery.
      const legacy = (job.data as unknown as { id?: unknown }).id;
      const deliveries = Array.isArray(job.data.deliveries) ? job.data.deliveries : typeof legacy === 'string' ? [{ id: legacy, key: '' }] : [];
      try {
        await this.attemptBatch(deliveries.map((delivery) => delivery.id));
      } finally {
        for (const { key } of deliveries) this.enqueued.delete(key);
      }
    }, {
      connection: connection(),
      prefix,
      // Jobs are often smaller than a batch (the next heads after a few finished deliveries), so
      // as many jobs as requests may be active; `sendSlots` bounds the requests in flight.
      concurrency: this.config.concurrency,
      // A job left active by a killed process comes back quickly; claimDeliveries keeps it single.
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
    await this.recording?.catch(() => undefined);
    await this.queue?.close();
    for (const redis of this.connections) redis.disconnect();
  }

  /** Enqueues what is due now; concurrent calls coalesce into one more run. */
  tick(): Promise<void> {
    this.offers += 1;
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

  /**
   * New deliveries of these resources were committed: a new one can only be first in line when its
   * resource had nothing else pending, so the look-up is limited to these resources.
   */
  async offerNew(resources: { platformId: string; resourceId: string }[]): Promise<void> {
    this.offers += 1;
    await this.enqueue(await nextHeads(this.pool, this.clock.now(), resources));
  }

  private async enqueue(due: DueDelivery[]): Promise<void> {
    if (due.length === 0 || !this.queue) return;
    const nowMs = Date.now();
    const deliveries = due
      .map(({ id, attemptCount }) => ({ id, key: attemptKeyOf(id, attemptCount) }))
      .filter(({ key }) => nowMs - (this.enqueued.get(key) ?? 0) > ENQUEUED_MEMORY_MS);
    if (deliveries.length === 0) return;
    for (const { key } of deliveries) this.enqueued.set(key, nowMs);
    const jobs: JobData[] = [];
    const size = Math.min(this.config.batchSize, this.config.concurrency);
    for (let start = 0; start < deliveries.length; start += size) jobs.push({ deliveries: deliveries.slice(start, start + size) });
    try {
      await this.queue.addBulk(jobs.map((data) => ({ name: 'deliver', data, opts: { removeOnComplete: true, removeOnFail: true } })));
    } catch (error) {
      // Not enqueued: the next tick may offer them again at once.
      for (const { key } of deliveries) this.enqueued.delete(key);
      throw error;
    }
  }

  /**
   * One attempt at each of the given deliveries that is (still) due and first in line: claimed in
   * one statement, sent concurrently, each recorded as soon as a batch statement takes it.
   */
  async attemptBatch(ids: string[]): Promise<void> {
    // Slots are taken before the claim, so a lease never runs while its delivery waits for a slot.
    const slots = Math.min(ids.length, this.config.concurrency);
    await this.sendSlots.acquire(slots);
    let claimed: Claimed[] = [];
    const now = this.clock.now();
    try {
      // Jobs are cut to at most `concurrency` deliveries (see enqueue); any beyond would be offered again by the tick.
      claimed = await claimDeliveries(this.pool, ids.slice(0, slots), now, new Date(now.getTime() + this.config.requestTimeoutMs + LEASE_MARGIN_MS));
    } finally {
      this.sendSlots.release(slots - claimed.length);
    }
    const outcomes = await Promise.allSettled(claimed.map((row) => this.attempt(row, now)));
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async attempt(claimed: Claimed, now: Date): Promise<void> {
    let result: PostResult;
    try {
      result = await this.send(claimed, now);
    } finally {
      this.sendSlots.release(1);
    }
    const windowStart = claimed.first_attempt_at ?? now;
    const step = nextStep({ result, retried: claimed.retried, attemptsMade: claimed.attempt_count, windowStart, now: this.clock.now() });
    const outcome: Outcome = step.kind === 'retry' ? { status: 'PENDING', nextAttemptAt: step.at } : { status: step.kind === 'delivered' ? 'DELIVERED' : 'FAILED' };
    const url = claimed.webhook_endpoint ?? '';
    await this.record({
      id: claimed.id,
      attempt: { attempt: claimed.attempt_count, at: now, url, latencyMs: result.latencyMs, ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}), ...(result.error ? { error: result.error } : {}) },
      outcome,
      now: this.clock.now(),
    });
    this.observe(claimed.type, step.kind, result, claimed.occurred_at);
    // The approval hook's one attempt decides the payment: its answer goes back to payments.
    if (claimed.type === APPROVAL_HOOK && step.kind !== 'retry') this.approvals.report(claimed.platform_id, claimed.resource_id, result);
  }

  /** Resolves once the attempt is committed; attempts finishing meanwhile share one statement. */
  private record(finished: FinishedAttempt): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.toRecord.push({ finished, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.recordingActive) {
        this.recordingActive = true;
        this.recording = this.recordWaiting();
      }
    });
  }

  private async recordWaiting(): Promise<void> {
    try {
      while (this.toRecord.length > 0) await this.recordBatch(this.toRecord.splice(0, RECORD_BATCH));
    } finally {
      // Cleared in the same turn as the loop's last emptiness check, so no attempt is left waiting.
      this.recordingActive = false;
    }
  }

  /** Never throws: a failed statement fails the attempts it carried (their jobs fail, their leases end). */
  private async recordBatch(batch: Waiting[]): Promise<void> {
    const ticksBefore = this.offers;
    let recorded: Recorded[];
    try {
      recorded = await recordAttempts(this.pool, batch.map((waiting) => waiting.finished));
    } catch (error) {
      for (const waiting of batch) waiting.done(error);
      return;
    }
    for (const waiting of batch) waiting.done();
    // The next webhook of a finished delivery's resource was waiting for it. The look-up is
    // skipped when the resource had nothing else pending, unless new deliveries were written
    // meanwhile (their offer may have run before these attempts were committed).
    const newDeliveries = this.offers !== ticksBefore;
    const finished = new Set(batch.filter((waiting) => waiting.finished.outcome.status !== 'PENDING').map((waiting) => waiting.finished.id));
    const freed = recorded.filter((row) => finished.has(row.id) && (row.morePending || newDeliveries));
    if (freed.length > 0) {
      void nextHeads(this.pool, this.clock.now(), freed)
        .then((due) => this.enqueue(due))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'Looking up the next deliveries failed; the tick will offer them.'));
    }
  }

  private async send(claimed: Claimed, now: Date): Promise<PostResult> {
    if (!claimed.webhook_endpoint) return { error: 'The platform has no webhookEndpoint configured.', latencyMs: 0 };
    const signature = signatureHeader(claimed.body, await this.keys.privateKey(claimed.platform_id, now));
    // PATCH /config checked the endpoint, but its name may resolve elsewhere now (DNS rebinding):
    // a production platform's request goes only to the public addresses it resolves to at send time.
    // A platform whose environment this service never learnt (created before PlatformCreated was
    // keyed by its stream) is not checked here; PATCH /config still checks its endpoint.
    const policy: TargetPolicy = { publicOnly: claimed.environment === 'PRODUCTION' && !this.config.allowPrivateTargets, resolve: resolveWithDns };
    return postWebhook(claimed.webhook_endpoint, claimed.body, signature, this.config.requestTimeoutMs, policy);
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
