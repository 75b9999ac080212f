import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type Job, Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { BLOB_STORE, type BlobStore } from '@corridor/blob-store';
import { CLOCK, type Clock } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { type Carrier, contextCarrier, continueFromCarrier, SpanKind } from '@corridor/telemetry';
import type { Logger } from 'pino';
import { Counter, Gauge, Registry } from 'prom-client';
import { PlatformSettingsCache } from '../customers/platform-settings.cache';
import { queueJobIdOf } from './bulk-import';
import { type SweepOutcome, sweepBulkImports, type UnfinishedImport } from './bulk-import-sweep';
import { BulkImportEntity } from './bulk-import-view.projection';
import { type BulkImportDependencies, failBulkImportForGood, runBulkImport } from './run-bulk-import';

export const BULK_IMPORT_OPTIONS = 'BULK_IMPORT_OPTIONS';
export type BulkImportOptions = {
  redisUrl: string;
  /** Prefix of every BullMQ key, so deployments (and test runs) sharing a Redis stay apart. */
  redisKeyPrefix: string;
  /** Rows decided together: their claims go to the store in one statement, their customers in another. */
  batchRows: number;
  /** Batches written at once while earlier ones are recorded (the store, not this process, is the bottleneck). */
  batchesInFlight: number;
  /** A file with more data rows than this fails as a whole (BULK_IMPORT_MAX_ROWS). */
  maxRows: number;
  /** Runs of a job before its last failure ends it FAILED (BULK_IMPORT_ATTEMPTS). */
  attempts: number;
  /** How often unfinished jobs whose queue entry Redis lost are queued again; 0 turns the sweep off (BULK_IMPORT_SWEEP_INTERVAL_MS). */
  sweepIntervalMs: number;
  /** An unfinished job without progress for this long is stuck: /health degraded (BULK_IMPORT_STUCK_AFTER_MS). */
  stuckAfterMs: number;
};

/** Unfinished jobs one sweep looks at; the oldest first, so a job never waits behind newer ones. */
const SWEEP_BATCH = 1_000;

const QUEUE_NAME = 'bulk-imports';
/** The job and the context of the request that accepted it (ids and trace), which the worker restores. */
type JobData = { jobId: string; context?: Carrier };

/**
 * The BullMQ queue of bulk import jobs and this process's worker. Jobs of any replica's uploads
 * are shared by the replicas' workers; one job is imported by one worker at a time.
 */
@Injectable()
export class BulkImportQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private queue?: Queue<JobData>;
  private worker?: Worker<JobData>;
  private readonly connections: IORedis[] = [];
  private readonly logger: Logger = createLogger('customers:bulk-import');
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<SweepOutcome>;
  /** The last sweep's outcome, for /health. */
  lastSweep?: SweepOutcome & { at: Date; requeuedTotal: number };
  readonly metrics = bulkImportMetrics(() => this.lastSweep);

  constructor(
    @Inject(BULK_IMPORT_OPTIONS) private readonly options: BulkImportOptions,
    private readonly eventSourcing: EventSourcing,
    private readonly platformSettings: PlatformSettingsCache,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The queue's Redis connection (for the health part), once the app has bootstrapped. */
  get redis(): IORedis | undefined {
    return this.connections[0];
  }

  async onApplicationBootstrap(): Promise<void> {
    const connection = () => {
      // BullMQ workers need maxRetriesPerRequest null: a command waits for Redis to come back.
      const redis = new IORedis(this.options.redisUrl, { maxRetriesPerRequest: null });
      redis.on('error', (error) => this.logger.warn({ err: error }, 'Redis connection error; reconnecting.'));
      this.connections.push(redis);
      return redis;
    };
    const prefix = `${this.options.redisKeyPrefix}bull`;
    this.queue = new Queue<JobData>(QUEUE_NAME, { connection: connection(), prefix });
    const deps: BulkImportDependencies = {
      eventSourcing: this.eventSourcing,
      blobs: this.blobs,
      clock: this.clock,
      logger: this.logger,
      settingsOf: (context) => this.platformSettings.get(context),
      batchRows: this.options.batchRows,
      batchesInFlight: this.options.batchesInFlight,
      maxRows: this.options.maxRows,
    };
    this.worker = new Worker<JobData>(QUEUE_NAME, (job) => this.work(deps, job), {
      connection: connection(),
      prefix,
      concurrency: 1,
      // A job left active by a killed process comes back within this long, and resumes.
      stalledInterval: 10_000,
      maxStalledCount: 100,
    });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'Worker error.'));
    this.worker.on('failed', (job, error) =>
      this.logger.warn({ jobId: job?.data.jobId, attempt: job?.attemptsMade, err: error }, 'Bulk import run failed; BullMQ retries it.'),
    );
    // Jobs accepted but never queued (the process died in between) or cut short are queued again;
    // the sweep does the same every sweepIntervalMs for jobs whose queue entry Redis lost.
    await this.sweep();
    if (this.options.sweepIntervalMs > 0) {
      const sweepLogged = () =>
        void this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, 'Bulk import sweep failed; the next one retries.'));
      this.sweepTimer = setInterval(sweepLogged, this.options.sweepIntervalMs);
    }
  }

  /** One run of a job; its last failed run ends the job FAILED (BulkImportFailed, so BULK_UPLOAD.FAILED) instead of vanishing. */
  /** The upload's request goes on in the worker: its correlation in every log line and event, the job as the cause. */
  private work(deps: BulkImportDependencies, job: Job<JobData>): Promise<void> {
    const carried = job.data.context ?? {};
    const { jobId } = job.data;
    const fallback = { requestId: jobId, correlationId: jobId, causationId: jobId };
    const span = { name: 'bulk-import run', kind: SpanKind.CONSUMER, attributes: { 'corridor.job.id': jobId } };
    return continueFromCarrier(
      (name) => carried[name],
      fallback,
      span,
      () => this.runOnce(deps, job),
    );
  }

  private async runOnce(deps: BulkImportDependencies, job: Job<JobData>): Promise<void> {
    const { jobId } = job.data;
    try {
      const outcome = await runBulkImport(deps, jobId);
      const progress = outcome.status === 'None' ? {} : outcome.progress;
      this.logger.info({ jobId, status: outcome.status, ...progress }, 'Bulk import run ended.');
    } catch (error) {
      // attemptsMade counts the runs that failed before this one.
      if (job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw error;
      const lastError = error instanceof Error ? error.message : String(error);
      const ended = await failBulkImportForGood(
        deps,
        jobId,
        `The import failed ${job.attemptsMade + 1} times; the last error was: ${lastError}`,
      );
      // A job this database does not know is another deployment's (shared Redis prefix): nothing to record.
      if (!ended) throw error;
      this.logger.error({ jobId, err: error, status: ended.status }, 'Bulk import failed on its last attempt; recorded as failed.');
      this.metrics.failedForGood.inc();
    }
  }

  /** Queues again every unfinished job whose queue entry is gone, and notes which are stuck; concurrent calls share one run. */
  sweep(): Promise<SweepOutcome> {
    this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<SweepOutcome> {
    if (!this.queue) throw new Error('BulkImportQueue swept before the application bootstrapped.');
    const queue = this.queue;
    const rows = await this.eventSourcing.em
      .fork()
      .find(
        BulkImportEntity,
        { status: { $in: ['PENDING', 'PROCESSING'] } },
        { fields: ['id', 'status', 'updatedAt'], orderBy: { createdAt: 'asc' }, limit: SWEEP_BATCH },
      );
    const unfinished = rows.map((row) => ({ id: row.id, status: row.status, updatedAt: row.updatedAt }) as UnfinishedImport);
    const queuedIds = await Promise.all(unfinished.map(async ({ id }) => ((await queue.getJob(queueJobIdOf(id))) ? [id] : [])));
    const outcome = sweepBulkImports(unfinished, new Set(queuedIds.flat()), this.clock.now(), this.options.stuckAfterMs);
    for (const jobId of outcome.requeue) await this.enqueue(jobId);
    if (outcome.requeue.length > 0) {
      const why = 'their queue entries were gone (Redis lost them, or they were never queued)';
      this.logger.warn({ jobIds: outcome.requeue }, `Queued ${outcome.requeue.length} unfinished bulk import(s) again: ${why}.`);
    }
    if (outcome.stuck.length > 0) {
      const what = `${outcome.stuck.length} bulk import(s) made no progress for ${this.options.stuckAfterMs} ms.`;
      this.logger.warn({ stuck: outcome.stuck.slice(0, 10), count: outcome.stuck.length }, what);
    }
    this.metrics.requeued.inc(outcome.requeue.length);
    const requeuedTotal = (this.lastSweep?.requeuedTotal ?? 0) + outcome.requeue.length;
    this.lastSweep = { ...outcome, at: this.clock.now(), requeuedTotal };
    return outcome;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    // A sweep that fails was already logged by its caller (sweepLogged); shutdown only waits for it.
    await this.sweeping?.catch(() => undefined);
    await this.worker?.close();
    await this.queue?.close();
    for (const redis of this.connections) redis.disconnect();
  }

  /** Queues a job's import; a job already queued or running under its id is not queued twice. */
  async enqueue(jobId: string): Promise<void> {
    if (!this.queue) throw new Error('BulkImportQueue used before the application bootstrapped.');
    await this.queue.add(
      'import',
      { jobId, context: contextCarrier() },
      {
        jobId: queueJobIdOf(jobId),
        attempts: this.options.attempts,
        backoff: { type: 'exponential', delay: 1_000 },
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }
}

/** The bulk import sweep on GET /metrics: what it found unfinished or stuck, what it queued again, what ended failed after its retries. */
const bulkImportMetrics = (last: () => SweepOutcome | undefined) => {
  const registry = new Registry();
  new Gauge({
    name: 'corridor_bulk_imports_unfinished',
    help: 'Bulk import jobs PENDING or PROCESSING at the last sweep.',
    registers: [registry],
    collect() {
      this.set(last()?.unfinished ?? 0);
    },
  });
  new Gauge({
    name: 'corridor_bulk_imports_stuck',
    help: 'Unfinished bulk import jobs without progress for BULK_IMPORT_STUCK_AFTER_MS at the last sweep.',
    registers: [registry],
    collect() {
      this.set(last()?.stuck.length ?? 0);
    },
  });
  return {
    registry,
    requeued: new Counter({
      name: 'corridor_bulk_imports_requeued_total',
      help: 'Unfinished bulk import jobs the sweep queued again because their queue entry was gone.',
      registers: [registry],
    }),
    failedForGood: new Counter({
      name: 'corridor_bulk_imports_failed_after_retries_total',
      help: 'Bulk import jobs ended FAILED because their last attempt failed.',
      registers: [registry],
    }),
  };
};
