import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { BLOB_STORE, type BlobStore } from '@corridor/blob-store';
import { CLOCK, type Clock } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { type Carrier, contextCarrier, continueFromCarrier, SpanKind } from '@corridor/telemetry';
import type { Logger } from 'pino';
import { PlatformSettingsCache } from '../customers/platform-settings.cache';
import { queueJobIdOf } from './bulk-import';
import { BulkImportEntity } from './bulk-import-view.projection';
import { type BulkImportDependencies, runBulkImport } from './run-bulk-import';

export const BULK_IMPORT_OPTIONS = 'BULK_IMPORT_OPTIONS';
export type BulkImportOptions = {
  redisUrl: string;
  /** Prefix of every BullMQ key, so deployments (and test runs) sharing a Redis stay apart. */
  redisKeyPrefix: string;
  /** Rows decided together: their claims go to the store in one statement, their customers in another. */
  batchRows: number;
  /** Batches written at once while earlier ones are recorded (the store, not this process, is the bottleneck). */
  batchesInFlight: number;
};

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
    };
    this.worker = new Worker<JobData>(QUEUE_NAME, async (job) => {
      // The upload's request goes on in the worker: its correlation in every log line and event, the job as the cause.
      const carried = job.data.context ?? {};
      const fallback = { requestId: job.data.jobId, correlationId: job.data.jobId, causationId: job.data.jobId };
      const span = { name: 'bulk-import run', kind: SpanKind.CONSUMER, attributes: { 'corridor.job.id': job.data.jobId } };
      await continueFromCarrier((name) => carried[name], fallback, span, async () => {
        const outcome = await runBulkImport(deps, job.data.jobId);
        this.logger.info({ jobId: job.data.jobId, status: outcome.status, ...(outcome.status === 'None' ? {} : outcome.progress) }, 'Bulk import run ended.');
      });
    }, {
      connection: connection(),
      prefix,
      concurrency: 1,
      // A job left active by a killed process comes back within this long, and resumes.
      stalledInterval: 10_000,
      maxStalledCount: 100,
    });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'Worker error.'));
    this.worker.on('failed', (job, error) => this.logger.warn({ jobId: job?.data.jobId, err: error }, 'Bulk import run failed; BullMQ retries it.'));
    // Jobs accepted but never queued (the process died in between) or cut short are queued again.
    const unfinished = await this.eventSourcing.em.find(BulkImportEntity, { status: { $in: ['PENDING', 'PROCESSING'] } }, { fields: ['id'] });
    for (const { id } of unfinished) await this.enqueue(id);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
    for (const redis of this.connections) redis.disconnect();
  }

  /** Queues a job's import; a job already queued or running under its id is not queued twice. */
  async enqueue(jobId: string): Promise<void> {
    if (!this.queue) throw new Error('BulkImportQueue used before the application bootstrapped.');
    await this.queue.add('import', { jobId, context: contextCarrier() }, {
      jobId: queueJobIdOf(jobId),
      attempts: 20,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: true,
      removeOnFail: true,
    });
  }
}
