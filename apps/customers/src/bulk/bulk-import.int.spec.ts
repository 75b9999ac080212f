// Runs the customers service in-process against real PostgreSQL, NATS and Redis (a tiny platform
// service answers the settings request) and pins down what only storage can show: a batch written
// twice creates each customer once, and a job re-run after a crash mid-file resumes after its last
// recorded batch, recognises the batch the crash interrupted, and imports every row exactly once;
// the sweep queues again a job whose queue entry is gone, and a job whose every run fails ends
// FAILED on its last attempt.
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BLOB_STORE, type BlobStore } from '@corridor/blob-store';
import { CLOCK, type Clock, newId, type PlatformConfigWire, type RequestContext, type ServiceRequest, subjects } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createLogger, createServiceApp } from '@corridor/messaging';
import { requireNats, requireRedis, uniqueRedisPrefix, uniqueSubjectPrefix, useTestDatabase } from '@corridor/testing';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { toIntegrationEvent } from '../integration-events';
import { renderCustomerAt } from '../customers/customer-at';
import { CustomerEntity } from '../customers/customer-view.projection';
import { PlatformSettingsCache } from '../customers/platform-settings.cache';
import { type BulkImport, bulkImportDecider, bulkImportJobId } from './bulk-import';
import { acceptBulkImport, recordBulkImportProgress, startBulkImport } from './bulk-import-commands';
import { BulkImportQueue } from './bulk-import.queue';
import { createCustomersInBatch, rowCustomerId } from './create-customers-in-batch';
import { parseRow } from './csv-row';
import { runBulkImport } from './run-bulk-import';

const database = useTestDatabase();
const platformId = newId('Platform');
/** A platform whose settings the platform service never answers: every run of its imports fails. */
const unanswered = newId('Platform');
let customers: INestMicroservice;
let platform: INestMicroservice;
let blobDirectory: string;
let eventSourcing: EventSourcing;
let blobs: BlobStore;
let clock: Clock;
let settings: PlatformSettingsCache;
let queue: BulkImportQueue;

@Controller()
class SandboxPlatform {
  @MessagePattern(subjects.platform.platform.get)
  get(@Payload() request: ServiceRequest<unknown>): PlatformConfigWire {
    if (request.context.platformId === unanswered) throw new Error('The platform store is unreachable.');
    const at = '2026-01-01T00:00:00.000Z';
    return {
      id: 'PlatformConfig:1',
      platformId,
      environment: 'SANDBOX',
      umaDomain: 'int.sandbox.uma.money',
      proxyUmaSubdomain: 'int',
      supportedCurrencies: [{ currencyCode: 'USD' } as never],
      isRegulatedFinancialInstitution: false,
      createdAt: at,
      updatedAt: at,
    };
  }
}
@Module({ controllers: [SandboxPlatform] })
class SandboxPlatformModule {}

const header = [
  'umaAddress',
  'platformCustomerId',
  'customerType',
  'fullName',
  'birthDate',
  'addressLine1',
  'city',
  'state',
  'postalCode',
  'country',
];
const line = (run: string, n: number) =>
  `$p${n}.${run}@int.example.com,p-${run}-${n},INDIVIDUAL,Person ${n},1980-01-15,${n} Main St,Springfield,IL,62701,US`;
const context = (jobId: string): RequestContext => ({
  platformId,
  actor: { kind: 'system', name: 'int-spec' },
  requestId: `${jobId}-spec`,
  correlationId: jobId,
});

/** Reads until `done` holds or the bound passes (a wait for the worker, not a timing assertion). */
const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const customersOf = async (run: string) =>
  (await eventSourcing.em.find(CustomerEntity, { platformId, platformCustomerId: { $like: `p-${run}-%` } })).length;
const streamLength = async (streamId: string) => (await eventSourcing.store.readStream(streamId)).events.length;
const jobState = async (jobId: string): Promise<BulkImport> =>
  (await eventSourcing.store.readStream(jobId)).events.reduce(
    (state, event) => bulkImportDecider.evolve(state, event as never),
    bulkImportDecider.initialState(),
  );

beforeAll(async () => {
  await Promise.all([requireNats(), requireRedis()]);
  blobDirectory = await mkdtemp(join(tmpdir(), 'corridor-bulk-int-'));
  const subjectPrefix = uniqueSubjectPrefix();
  const base = loadConfig({ BLOB_DIR: blobDirectory });
  const config = {
    ...base,
    healthPort: 0,
    databaseUrl: database.url,
    subjectPrefix,
    logLevel: 'warn',
    bulkImport: {
      ...base.bulkImport,
      redisKeyPrefix: uniqueRedisPrefix(),
      batchRows: 10,
      batchesInFlight: 3,
      attempts: 2,
      sweepIntervalMs: 0,
    },
  };
  platform = await createServiceApp(SandboxPlatformModule, {
    service: 'platform',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await platform.listen();
  customers = await createServiceApp(AppModule.register(config), {
    service: 'customers',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await customers.listen();
  eventSourcing = customers.get(EventSourcing);
  blobs = customers.get<BlobStore>(BLOB_STORE);
  clock = customers.get<Clock>(CLOCK);
  settings = customers.get(PlatformSettingsCache);
  queue = customers.get(BulkImportQueue);
}, 60_000);

afterAll(async () => {
  await customers?.close();
  await platform?.close();
  if (blobDirectory) await rm(blobDirectory, { recursive: true, force: true });
});

describe('a batch written twice', () => {
  it('creates each customer once, and the second write refuses nothing', async () => {
    const run = newId('x').slice(-8);
    const jobId = bulkImportJobId(platformId, `batch-${run}`);
    const job = { jobId, platformId, acceptedAt: '2026-03-02T00:00:00.000Z' };
    const rows = Array.from({ length: 20 }, (_, index) => {
      const parsed = parseRow(header, line(run, index + 1).split(','), index + 1);
      if (!parsed.ok) throw new Error(parsed.error.message);
      return { rowNumber: index + 1, correlationId: parsed.correlationId, body: parsed.body };
    });
    const current = await settings.get(context(jobId));
    expect((await createCustomersInBatch(eventSourcing, job, rows, current, clock.now(), context(jobId))).size).toBe(0);
    expect((await createCustomersInBatch(eventSourcing, job, rows, current, clock.now(), context(jobId))).size).toBe(0);
    await eventSourcing.projections.waitFor(await eventSourcing.store.headPosition());
    expect(await customersOf(run)).toBe(20);
    expect(await streamLength(`PlatformCustomerId:${platformId}:p-${run}-1`)).toBe(1);
  });

  it('writes a batch whose values are all free, claims and customers, in one transaction (decision 0053)', async () => {
    const run = newId('x').slice(-8);
    const jobId = bulkImportJobId(platformId, `once-${run}`);
    const job = { jobId, platformId, acceptedAt: '2026-03-02T00:00:00.000Z' };
    const rows = Array.from({ length: 10 }, (_, index) => {
      const parsed = parseRow(header, line(run, index + 1).split(','), index + 1);
      if (!parsed.ok) throw new Error(parsed.error.message);
      return { rowNumber: index + 1, correlationId: parsed.correlationId, body: parsed.body };
    });
    const current = await settings.get(context(jobId));
    expect((await createCustomersInBatch(eventSourcing, job, rows, current, clock.now(), context(jobId))).size).toBe(0);
    const customerIds = rows.map(({ rowNumber }) => rowCustomerId(job, rowNumber));
    const { rows: written } = await eventSourcing.pool.query<{ events: number; transactions: number }>(
      `SELECT count(*)::int AS events, count(DISTINCT transaction_id)::int AS transactions FROM customers.events
        WHERE stream_id = ANY($1) OR data->>'ownerId' = ANY($1)`,
      [customerIds],
    );
    // Per row: two claims and the customer's two events (created, approved).
    expect(written).toEqual([{ events: 40, transactions: 1 }]);
    // The KYC change publishes the customer right after it, as renderAt would render it (decision 0057).
    const { events } = await eventSourcing.store.readStream(customerIds[0]!);
    expect(events.map((event) => event.type)).toEqual(['CustomerCreated', 'CustomerVerificationStatusChanged']);
    const published = (toIntegrationEvent(events[1]!)?.payload as { data: Record<string, unknown> }).data['customer'];
    expect(JSON.stringify(published)).toBe(JSON.stringify(renderCustomerAt(events, 2, platformId)));
  });

  it('refuses a row whose platformCustomerId another customer holds, and gives back its UMA address', async () => {
    const run = newId('x').slice(-8);
    const jobId = bulkImportJobId(platformId, `taken-${run}`);
    const job = { jobId, platformId, acceptedAt: '2026-03-02T00:00:00.000Z' };
    const first = parseRow(header, line(run, 1).split(','), 1);
    const twin = parseRow(header, line(run, 2).replace(`p-${run}-2`, `p-${run}-1`).split(','), 2);
    if (!first.ok || !twin.ok) throw new Error('rows must parse');
    const current = await settings.get(context(jobId));
    const refused = await createCustomersInBatch(
      eventSourcing,
      job,
      [
        { rowNumber: 1, correlationId: first.correlationId, body: first.body },
        { rowNumber: 2, correlationId: twin.correlationId, body: twin.body },
      ],
      current,
      clock.now(),
      context(jobId),
    );
    expect([...refused.keys()]).toEqual([2]);
    expect(refused.get(2)).toMatchObject({ correlationId: `p-${run}-1`, code: 'CONFLICT', details: { row: 2 } });
    // The twin's UMA address was claimed and released: free for anyone.
    const uma = (await eventSourcing.store.readStream(`UmaAddress:$p2.${run}@int.example.com`)).events.map((event) => event.type);
    expect(uma).toEqual(['UniqueValueClaimed', 'UniqueValueReleased']);
  });
});

describe('a job re-run after a crash mid-file', () => {
  it('resumes after the last recorded batch and imports every row exactly once', async () => {
    const run = newId('x').slice(-8);
    const total = 35;
    const csv = `${header.join(',')}\n${Array.from({ length: total }, (_, index) => line(run, index + 1)).join('\n')}\n`;
    const stored = await blobs.put(`bulk-imports/int/${run}.csv`, Readable.from([Buffer.from(csv)]));
    const jobId = bulkImportJobId(platformId, stored.sha256);
    const now = clock.now();
    const decide = (decision: (state: BulkImport) => never[] | ReturnType<typeof acceptBulkImport>) =>
      eventSourcing.handle(jobId, bulkImportDecider, decision, context(jobId));
    await decide((state) =>
      acceptBulkImport(
        {
          type: 'AcceptBulkImport',
          data: { jobId, platformId, blobKey: stored.key, sha256: stored.sha256, size: stored.size },
          metadata: { now },
        },
        state,
      ),
    );
    await decide((state) => startBulkImport({ type: 'StartBulkImport', data: { jobId, total }, metadata: { now } }, state));
    const job = await jobState(jobId);
    if (job.status !== 'PROCESSING') throw new Error(`expected PROCESSING, got ${job.status}`);

    // What the crashed run got done: rows 1–10 recorded as progress, rows 11–20 written but not recorded.
    const batchOf = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, index) => {
        const parsed = parseRow(header, line(run, from + index).split(','), from + index);
        if (!parsed.ok) throw new Error(parsed.error.message);
        return { rowNumber: from + index, correlationId: parsed.correlationId, body: parsed.body };
      });
    const current = await settings.get(context(jobId));
    const batchJob = { jobId, platformId, acceptedAt: job.acceptedAt };
    await createCustomersInBatch(eventSourcing, batchJob, batchOf(1, 10), current, now, context(jobId));
    await decide((state) =>
      recordBulkImportProgress(
        { type: 'RecordBulkImportProgress', data: { jobId, processed: 10, successful: 10, failed: 0, errors: [] }, metadata: { now } },
        state,
      ),
    );
    await createCustomersInBatch(eventSourcing, batchJob, batchOf(11, 20), current, now, context(jobId));

    const ended = await runBulkImport(
      {
        eventSourcing,
        blobs,
        clock,
        logger: createLogger('bulk-int', { level: 'warn' }),
        settingsOf: (asked) => settings.get(asked),
        batchRows: 10,
        batchesInFlight: 3,
        maxRows: 1_000,
      },
      jobId,
    );

    expect(ended).toMatchObject({ status: 'COMPLETED', progress: { total, processed: total, successful: total, failed: 0 } });
    expect(await customersOf(run)).toBe(total);
    const progress = (await eventSourcing.store.readStream(jobId)).events
      .filter((event) => event.type === 'BulkImportProgressed')
      .map((event) => event.data['processed']);
    expect(progress).toEqual([10, 20, 30, 35]);
    // A second run of the ended job changes nothing.
    const length = await streamLength(jobId);
    await runBulkImport(
      {
        eventSourcing,
        blobs,
        clock,
        logger: createLogger('bulk-int', { level: 'warn' }),
        settingsOf: (asked) => settings.get(asked),
        batchRows: 10,
        batchesInFlight: 3,
        maxRows: 1_000,
      },
      jobId,
    );
    expect(await streamLength(jobId)).toBe(length);
  });

  it('leaves a job of another database on the queue instead of dropping it', async () => {
    await expect(
      runBulkImport(
        {
          eventSourcing,
          blobs,
          clock,
          logger: createLogger('bulk-int', { level: 'warn' }),
          settingsOf: (asked) => settings.get(asked),
          batchRows: 10,
          batchesInFlight: 3,
          maxRows: 1_000,
        },
        bulkImportJobId(platformId, 'elsewhere'),
      ),
    ).rejects.toThrow('not in this service');
  });
});

/** A file of `total` rows of this run, accepted (as the upload route does) but not queued. */
const acceptedFile = async (run: string, total: number, owner = platformId): Promise<string> => {
  const csv = `${header.join(',')}\n${Array.from({ length: total }, (_, index) => line(run, index + 1)).join('\n')}\n`;
  const stored = await blobs.put(`bulk-imports/int/${run}.csv`, Readable.from([Buffer.from(csv)]));
  const jobId = bulkImportJobId(owner, stored.sha256);
  const data = { jobId, platformId: owner, blobKey: stored.key, sha256: stored.sha256, size: stored.size };
  await eventSourcing.handle(
    jobId,
    bulkImportDecider,
    (state) => acceptBulkImport({ type: 'AcceptBulkImport', data, metadata: { now: clock.now() } }, state),
    { ...context(jobId), platformId: owner },
  );
  await eventSourcing.projections.waitFor(await eventSourcing.store.headPosition());
  return jobId;
};

describe('the sweep', () => {
  it('queues again an unfinished job whose queue entry is gone, and the job finishes', async () => {
    const run = newId('x').slice(-8);
    const jobId = await acceptedFile(run, 12);
    const swept = await queue.sweep();
    expect(swept.requeue).toContain(jobId);
    const ended = await eventually(
      () => jobState(jobId),
      (state) => state.status === 'COMPLETED' || state.status === 'FAILED',
      30_000,
    );
    expect(ended).toMatchObject({ status: 'COMPLETED', progress: { processed: 12, successful: 12 } });
    expect(await customersOf(run)).toBe(12);
    expect(queue.lastSweep?.requeuedTotal).toBeGreaterThanOrEqual(1);
    expect(await queue.metrics.registry.metrics()).toMatch(/corridor_bulk_imports_requeued_total [1-9]/);
  });

  it('leaves a job that still has its queue entry alone', async () => {
    const run = newId('x').slice(-8);
    const jobId = await acceptedFile(run, 3);
    await queue.enqueue(jobId);
    // Queued and maybe already running or done: either way the sweep does not queue it again.
    expect((await queue.sweep()).requeue).not.toContain(jobId);
  });
});

describe('a job whose every run fails', () => {
  it('ends FAILED with the last error on its last attempt (so BULK_UPLOAD.FAILED is sent) instead of vanishing', async () => {
    const run = newId('x').slice(-8);
    const jobId = await acceptedFile(run, 2, unanswered);
    await queue.enqueue(jobId);
    const ended = await eventually(
      () => jobState(jobId),
      (state) => state.status === 'FAILED' || state.status === 'COMPLETED',
      30_000,
    );
    expect(ended.status).toBe('FAILED');
    const failed = (await eventSourcing.store.readStream(jobId)).events.find((event) => event.type === 'BulkImportFailed');
    expect(failed?.data['reason']).toEqual(expect.stringContaining('The import failed 2 times'));
    // Counted once the failure is recorded, so just after the event the test saw.
    expect(
      await eventually(
        () => queue.metrics.registry.metrics(),
        (text) => /failed_after_retries_total 1/.test(text),
      ),
    ).toMatch(/corridor_bulk_imports_failed_after_retries_total 1/);
  });
});

describe('a file with more rows than BULK_IMPORT_MAX_ROWS', () => {
  it('fails as a whole before any row is imported, saying how to split it', async () => {
    const run = newId('x').slice(-8);
    const jobId = await acceptedFile(run, 6);
    const ended = await runBulkImport(
      {
        eventSourcing,
        blobs,
        clock,
        logger: createLogger('bulk-int', { level: 'warn' }),
        settingsOf: (asked) => settings.get(asked),
        batchRows: 10,
        batchesInFlight: 3,
        maxRows: 5,
      },
      jobId,
    );
    expect(ended.status).toBe('FAILED');
    const failed = (await eventSourcing.store.readStream(jobId)).events.find((event) => event.type === 'BulkImportFailed');
    expect(failed?.data['reason']).toContain('more than 5 rows; split it');
    expect(await customersOf(run)).toBe(0);
  });
});
