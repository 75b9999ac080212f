import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import type { Pool } from 'pg';
import { ALLOW_PRIVATE_WEBHOOK_TARGETS_ENV, CLOCK, type Clock, type WebhookType } from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import { type Carrier, CAUSATION_ID_HEADER, continueFromCarrier, CORRELATION_ID_HEADER, SpanKind } from '@corridor/telemetry';
import type { WebhooksServiceConfig } from '../config';
import { WebhookMetrics } from '../metrics';
import { signatureHeader } from '../signing/signing-key';
import { SigningKeys } from '../signing/signing-keys';
import {
  type Claimed,
  claimDeliveries,
  type DueDelivery,
  dueHeads,
  type FinishedAttempt,
  nextHeads,
  type Outcome,
  type Recorded,
  recordAttempts,
} from './delivery-store';
import { APPROVAL_HOOK } from '../kinds/incoming-payment';
import { ApprovalReporter } from './approval-report';
import { Circuits } from './circuits';
import type { HeldDeliveries } from './delivery-health';
import { admit, type AttemptEnd, type Lane, laneOf, park, toUnpark } from './fairness';
import { postWebhook, type PostResult, targetPolicy } from './post-webhook';
import { nextStep } from './retry-schedule';

export const WEBHOOKS_CONFIG = 'WEBHOOKS_CONFIG';
export const WEBHOOKS_POOL = 'WEBHOOKS_POOL';

// Ordinary webhooks keep the queue name they always had, so jobs left in Redis by the previous version are still worked.
const QUEUE_NAMES: Record<Lane, string> = { ORDINARY: 'webhook-deliveries', APPROVAL: 'webhook-approvals' };
const TICK_BATCH = 1_000;
// A lease outlives one attempt (timeout plus margin), so a killed process's delivery is freed soon after.
const LEASE_MARGIN_MS = 5_000;
// A delivery this process enqueued is not offered to BullMQ again for this long (each offer costs
// a Redis round trip); after it, or after Redis reconnects (jobs may be gone), it is offered again.
const ENQUEUED_MEMORY_MS = 30_000;
// Finished attempts written by one statement at most.
const RECORD_BATCH = 500;
// Deliveries of one platform held back in memory at most, per lane; beyond, the tick offers them again later.
const PARKED_MAX = 1_000;

/**
 * Key of one due attempt of one delivery: a delivery offered again for the same attempt while its
 * job is pending is not enqueued twice by this process.
 */
export const attemptKeyOf = (deliveryId: string, attemptCount: number): string => `${deliveryId}#${attemptCount + 1}`;

/**
 * What a delivery row keeps of its story, as the carrier an attempt restores (a row from before
 * migration 003 has none: its attempts start a correlation of their own, the delivery id).
 */
export const storyCarrier = (row: Pick<Claimed, 'correlation_id' | 'causation_id' | 'traceparent' | 'tracestate'>): Carrier => {
  const carrier: Carrier = {};
  if (row.correlation_id) carrier[CORRELATION_ID_HEADER] = row.correlation_id;
  if (row.causation_id) carrier[CAUSATION_ID_HEADER] = row.causation_id;
  if (row.traceparent) carrier['traceparent'] = row.traceparent;
  if (row.tracestate) carrier['tracestate'] = row.tracestate;
  return carrier;
};

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

/** One delivery as a job carries it. platformId is absent from jobs of the previous version. */
type Entry = { id: string; key: string; platformId?: string };
type Admitted = Entry & { platformId: string };
type JobData = { deliveries: Entry[] };
type Waiting = { finished: FinishedAttempt; done: (error?: unknown) => void };

/** A lane of this process (fairness.ts): its queue and worker, its slots, and its deliveries in flight and parked per platform. */
type LaneRuntime = {
  name: Lane;
  concurrency: number;
  perPlatform: number;
  slots: Slots;
  inFlight: Map<string, number>;
  parked: Map<string, Admitted[]>;
  queue?: Queue<JobData>;
  worker?: Worker<JobData>;
};

/**
 * Sends deliveries. PostgreSQL decides what is due (times from the injected Clock); BullMQ carries
 * the work to the workers, a batch of due deliveries per job. tick() enqueues every due delivery
 * that is first in line for its resource: it is also the sweeper, since a job lost with Redis is
 * simply enqueued again, and a delivery enqueued twice is harmless because claimDeliveries lets
 * only one attempt take the row. Finished attempts are written in batches (group commit), and the
 * next webhook of a resource is looked up only when the resource had one pending.
 *
 * Fairness (fairness.ts): approval hooks go through a lane of their own; in each lane a platform
 * has at most its cap in flight, the rest parked here until its own deliveries finish; and a
 * circuit per platform endpoint stops sending to one that keeps timing out.
 */
@Injectable()
export class Dispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger: ReturnType<typeof createLogger>;
  private connections: IORedis[] = [];
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private tickAgain = false;
  /** Counts ticks and new deliveries offered: one asked for while attempts were being recorded may have missed their end. */
  private offers = 0;
  private readonly enqueued = new Map<string, number>();
  private readonly lanes: Record<Lane, LaneRuntime>;
  private readonly circuits: Circuits;
  /** Parked deliveries being attempted outside any job: shutdown waits for them. */
  private readonly unparkedRuns = new Set<Promise<void>>();
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
    // At the service's LOG_LEVEL: each attempt's line (debug) is the outgoing webhooks' access log.
    this.logger = createLogger('webhooks:dispatcher', { level: config.logLevel });
    const lane = (name: Lane, concurrency: number, perPlatform: number): LaneRuntime => {
      return { name, concurrency, perPlatform, slots: new Slots(concurrency), inFlight: new Map(), parked: new Map() };
    };
    this.lanes = {
      ORDINARY: lane('ORDINARY', config.concurrency, config.platformConcurrency),
      APPROVAL: lane('APPROVAL', config.approvalConcurrency, config.approvalPlatformConcurrency),
    };
    const breaker = { timeoutsToOpen: config.breakerTimeouts, openMs: config.breakerOpenMs, probeTimeoutMs: config.breakerProbeTimeoutMs };
    this.circuits = new Circuits({ ...breaker, requestTimeoutMs: config.requestTimeoutMs }, metrics);
  }

  /** What this process holds per lane, for the health part. */
  held(): HeldDeliveries {
    const count = (lane: LaneRuntime) => ({
      inFlight: [...lane.inFlight.values()].reduce((sum, value) => sum + value, 0),
      parked: [...lane.parked.values()].reduce((sum, entries) => sum + entries.length, 0),
    });
    return { ORDINARY: count(this.lanes.ORDINARY), APPROVAL: count(this.lanes.APPROVAL) };
  }

  /** The queue's Redis connection (for the health part), once the app has bootstrapped. */
  get redis(): IORedis | undefined {
    return this.connections[0];
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.allowPrivateTargets) {
      this.logger.warn(
        `${ALLOW_PRIVATE_WEBHOOK_TARGETS_ENV}=true: webhooks of every platform may reach private, loopback, link-local ` +
          'and metadata addresses. ' +
          'Only a development stack or a deployment whose receivers live on its own network should run so.',
      );
    }
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
    for (const lane of Object.values(this.lanes)) {
      lane.queue = new Queue<JobData>(QUEUE_NAMES[lane.name], { connection: queueConnection, prefix });
      lane.worker = new Worker<JobData>(QUEUE_NAMES[lane.name], (job) => this.work(lane, job.data), {
        connection: connection(),
        prefix,
        // Jobs are often smaller than a batch (the next heads after a few finished deliveries), so
        // as many jobs as requests may be active; the lane's slots bound the requests in flight.
        concurrency: lane.concurrency,
        // A job left active by a killed process comes back quickly; claimDeliveries keeps it single.
        stalledInterval: 5_000,
        maxStalledCount: 1_000,
      });
      lane.worker.on('error', (error) => this.logger.warn({ err: error, lane: lane.name }, 'Worker error.'));
    }
    if (this.config.tickIntervalMs > 0) {
      this.timer = setInterval(
        () => void this.tick().catch((error: unknown) => this.logger.warn({ err: error }, 'Tick failed.')),
        this.config.tickIntervalMs,
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking?.catch(() => undefined);
    await Promise.all(Object.values(this.lanes).map((lane) => lane.worker?.close()));
    while (this.unparkedRuns.size > 0) await Promise.all([...this.unparkedRuns]);
    await this.recording?.catch(() => undefined);
    await Promise.all(Object.values(this.lanes).map((lane) => lane.queue?.close()));
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
          const busy = { ordinary: this.busyPlatforms(this.lanes.ORDINARY), approval: this.busyPlatforms(this.lanes.APPROVAL) };
          await this.enqueue(await dueHeads(this.pool, this.clock.now(), TICK_BATCH, busy));
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

  /** Platforms with as many deliveries in flight as they may, or with deliveries parked: the tick leaves them out. */
  private busyPlatforms(lane: LaneRuntime): string[] {
    const busy = new Set(lane.parked.keys());
    for (const [platformId, count] of lane.inFlight) if (count >= lane.perPlatform) busy.add(platformId);
    return [...busy];
  }

  private async enqueue(due: DueDelivery[]): Promise<void> {
    if (due.length === 0) return;
    const nowMs = Date.now();
    const fresh = due
      .map(({ id, platformId, type, attemptCount }) => ({ id, platformId, type, key: attemptKeyOf(id, attemptCount) }))
      .filter(({ key }) => nowMs - (this.enqueued.get(key) ?? 0) > ENQUEUED_MEMORY_MS);
    for (const { key } of fresh) this.enqueued.set(key, nowMs);
    const byLane = (lane: Lane): Entry[] =>
      fresh.filter((delivery) => laneOf(delivery.type) === lane).map(({ id, key, platformId }) => ({ id, key, platformId }));
    await Promise.all(Object.values(this.lanes).map((lane) => this.addJobs(lane, byLane(lane.name))));
  }

  /** Jobs of at most a batch each; deliveries not enqueued are forgotten, so the next tick may offer them at once. */
  private async addJobs(lane: LaneRuntime, deliveries: Entry[]): Promise<void> {
    if (deliveries.length === 0 || !lane.queue) return;
    const jobs: JobData[] = [];
    const size = Math.min(this.config.batchSize, lane.concurrency);
    for (let start = 0; start < deliveries.length; start += size) jobs.push({ deliveries: deliveries.slice(start, start + size) });
    try {
      await lane.queue.addBulk(jobs.map((data) => ({ name: 'deliver', data, opts: { removeOnComplete: true, removeOnFail: true } })));
    } catch (error) {
      for (const { key } of deliveries) this.enqueued.delete(key);
      throw error;
    }
  }

  private async work(lane: LaneRuntime, data: JobData): Promise<void> {
    // A job of the first shape ({ id }) carries one delivery.
    const legacy = (data as unknown as { id?: unknown }).id;
    const deliveries = Array.isArray(data.deliveries) ? data.deliveries : typeof legacy === 'string' ? [{ id: legacy, key: '' }] : [];
    const parked = new Set<string>();
    try {
      await this.attemptBatch(lane, deliveries, parked, false);
    } finally {
      // A parked delivery stays remembered as enqueued: it is this process's to start.
      for (const { key } of deliveries) if (!parked.has(key)) this.enqueued.delete(key);
    }
  }

  /**
   * One attempt at each of the given deliveries that is (still) due and first in line, within its
   * platform's cap (the others are parked): claimed in one statement, sent concurrently, each
   * recorded as soon as a batch statement takes it.
   */
  private async attemptBatch(lane: LaneRuntime, deliveries: Entry[], parked: Set<string>, unparked: boolean): Promise<void> {
    // Jobs are cut to at most the lane's concurrency (see addJobs); any beyond would be offered again by the tick.
    const candidates = deliveries.slice(0, lane.concurrency).map((delivery) => ({ ...delivery, platformId: delivery.platformId ?? '' }));
    const waiting = unparked ? new Set<string>() : new Set(lane.parked.keys());
    const { admitted, deferred } = admit(candidates, lane.inFlight, lane.perPlatform, waiting);
    this.park(lane, deferred, parked);
    if (admitted.length === 0) return;
    // Counted under the platform the job named (a job of the previous version names none), and released under it.
    const platformOf = new Map(admitted.map(({ id, platformId }) => [id, platformId]));
    for (const { platformId } of admitted) this.adjustInFlight(lane, platformId, 1);
    // Slots are taken before the claim, so a lease never runs while its delivery waits for a slot.
    await lane.slots.acquire(admitted.length);
    let claimed: Claimed[] = [];
    const now = this.clock.now();
    try {
      const leaseUntil = new Date(now.getTime() + this.config.requestTimeoutMs + LEASE_MARGIN_MS);
      claimed = await claimDeliveries(
        this.pool,
        admitted.map(({ id }) => id),
        now,
        leaseUntil,
      );
    } finally {
      const taken = new Set(claimed.map((row) => row.id));
      const untaken = admitted.filter(({ id }) => !taken.has(id));
      lane.slots.release(untaken.length);
      for (const { platformId } of untaken) this.adjustInFlight(lane, platformId, -1);
      for (const platformId of new Set(untaken.map((delivery) => delivery.platformId))) this.unpark(lane, platformId);
    }
    const outcomes = await Promise.allSettled(claimed.map((row) => this.attempt(lane, row, platformOf.get(row.id) ?? '', now)));
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private park(lane: LaneRuntime, deferred: Admitted[], parked: Set<string>): void {
    for (const platformId of new Set(deferred.map((delivery) => delivery.platformId))) {
      const mine = deferred.filter((delivery) => delivery.platformId === platformId);
      const kept = park(lane.parked.get(platformId) ?? [], mine, PARKED_MAX);
      lane.parked.set(platformId, kept.parked);
      for (const { key } of mine) parked.add(key);
      for (const { key } of kept.dropped) {
        parked.delete(key);
        this.enqueued.delete(key);
      }
      this.metrics.deferred.inc({ lane: lane.name }, mine.length);
    }
  }

  /**
   * A platform's delivery finished: parked ones of it are attempted as its cap allows (toUnpark),
   * here, ahead of its newer ones. They were taken off the queue by this process, so they are not
   * enqueued again (a second pass through Redis per delivery); a crash meanwhile leaves them due,
   * for the tick.
   */
  private unpark(lane: LaneRuntime, platformId: string): void {
    const waiting = lane.parked.get(platformId);
    if (!waiting) return;
    const count = toUnpark(waiting.length, lane.inFlight.get(platformId) ?? 0, lane.perPlatform, this.config.batchSize);
    if (count === 0) return;
    const next = waiting.splice(0, count);
    if (waiting.length === 0) lane.parked.delete(platformId);
    const parked = new Set<string>();
    const run = this.attemptBatch(lane, next, parked, true)
      .catch((error: unknown) => this.logger.warn({ err: error, platformId }, 'Parked deliveries failed; the tick will offer them again.'))
      .finally(() => {
        for (const { key } of next) if (!parked.has(key)) this.enqueued.delete(key);
        this.unparkedRuns.delete(run);
      });
    this.unparkedRuns.add(run);
  }

  private adjustInFlight(lane: LaneRuntime, platformId: string, change: 1 | -1): void {
    const count = (lane.inFlight.get(platformId) ?? 0) + change;
    if (count > 0) lane.inFlight.set(platformId, count);
    else lane.inFlight.delete(platformId);
    this.metrics.inFlight.inc({ lane: lane.name }, change);
  }

  /**
   * Each attempt goes on with its webhook's story, kept on the delivery row when the event was
   * taken in: the event's correlation in the attempt's log lines, and its span under the intake's.
   */
  private attempt(lane: LaneRuntime, claimed: Claimed, counted: string, now: Date): Promise<void> {
    const story = storyCarrier(claimed);
    const attributes = { 'corridor.webhook.id': claimed.id, 'corridor.webhook.attempt': claimed.attempt_count };
    return continueFromCarrier(
      (name) => story[name],
      { requestId: `${claimed.id}#${claimed.attempt_count}`, correlationId: claimed.id, platformId: claimed.platform_id },
      { name: `webhook attempt ${claimed.type}`, kind: SpanKind.INTERNAL, attributes },
      () => this.attemptInStory(lane, claimed, counted, now),
    );
  }

  private async attemptInStory(lane: LaneRuntime, claimed: Claimed, counted: string, now: Date): Promise<void> {
    let result: PostResult;
    try {
      result = await this.send(claimed, now);
    } finally {
      lane.slots.release(1);
      this.adjustInFlight(lane, counted, -1);
      this.unpark(lane, counted);
    }
    const windowStart = claimed.first_attempt_at ?? now;
    const step = nextStep({ result, retried: claimed.retried, attemptsMade: claimed.attempt_count, windowStart, now: this.clock.now() });
    const outcome: Outcome =
      step.kind === 'retry'
        ? { status: 'PENDING', nextAttemptAt: step.at }
        : { status: step.kind === 'delivered' ? 'DELIVERED' : 'FAILED' };
    const url = claimed.webhook_endpoint ?? '';
    await this.record({
      id: claimed.id,
      attempt: {
        attempt: claimed.attempt_count,
        at: now,
        url,
        latencyMs: result.latencyMs,
        ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}),
        ...(result.error ? { error: result.error } : {}),
      },
      outcome,
      now: this.clock.now(),
    });
    this.logger.debug(
      {
        webhookId: claimed.id,
        attempt: claimed.attempt_count,
        statusCode: result.statusCode,
        latencyMs: result.latencyMs,
        next: step.kind,
      },
      'Webhook attempt.',
    );
    this.observe(claimed.type, step.kind, result, claimed.occurred_at);
    // The approval hook's one attempt decides the payment: its answer goes back to payments.
    if (claimed.type === APPROVAL_HOOK && step.kind !== 'retry') {
      this.approvals.report(claimed.platform_id, claimed.resource_id, result, { noEndpoint: !claimed.webhook_endpoint });
    }
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
      recorded = await recordAttempts(
        this.pool,
        batch.map((waiting) => waiting.finished),
      );
    } catch (error) {
      for (const waiting of batch) waiting.done(error);
      return;
    }
    for (const waiting of batch) waiting.done();
    // The next webhook of a finished delivery's resource was waiting for it. The look-up is
    // skipped when the resource had nothing else pending, unless new deliveries were written
    // meanwhile (their offer may have run before these attempts were committed).
    const newDeliveries = this.offers !== ticksBefore;
    const finished = new Set(
      batch.filter((waiting) => waiting.finished.outcome.status !== 'PENDING').map((waiting) => waiting.finished.id),
    );
    const freed = recorded.filter((row) => finished.has(row.id) && (row.morePending || newDeliveries));
    if (freed.length > 0) {
      void nextHeads(this.pool, this.clock.now(), freed)
        .then((due) => this.enqueue(due))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'Looking up the next deliveries failed; the tick will offer them.'));
    }
  }

  /**
   * One attempt, unless the endpoint's circuit says not to send (then a failed result that says
   * why, like any other). PATCH /config checked the endpoint, but its name may resolve elsewhere
   * now (DNS rebinding): unless the deployment allows private targets, the request goes only to
   * the public addresses the name resolves to at send time, whatever the platform's environment.
   */
  private async send(claimed: Claimed, now: Date): Promise<PostResult> {
    const endpoint = claimed.webhook_endpoint;
    if (!endpoint) return { error: 'The platform has no webhookEndpoint configured.', latencyMs: 0 };
    const permission = this.circuits.permit(claimed.platform_id, endpoint, Date.now());
    if (!permission.send) return { error: permission.reason, latencyMs: 0 };
    const signature = signatureHeader(claimed.body, await this.keys.privateKey(claimed.platform_id, now));
    const policy = targetPolicy(this.config.allowPrivateTargets);
    const result = await postWebhook(endpoint, claimed.body, signature, permission.timeoutMs, policy);
    const end: AttemptEnd = result.timedOut ? 'TIMED_OUT' : result.statusCode !== undefined ? 'ANSWERED' : 'FAILED';
    this.circuits.record(claimed.platform_id, endpoint, end, Date.now());
    return result;
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
