import { setImmediate as nextTurn } from 'node:timers/promises';
import { currentContext } from '@corridor/telemetry';
import type { BlobStore } from '@corridor/blob-store';
import { type Clock, DomainError, type RequestContext } from '@corridor/contracts';
import type { EventSourcing } from '@corridor/event-store';
import type { Logger } from 'pino';
import type { PlatformSettings } from '../customers/platform-settings';
import { type BulkImport, bulkImportDecider, type BulkImportEvent } from './bulk-import';
import { finishBulkImport, recordBulkImportProgress, startBulkImport } from './bulk-import-commands';
import { createCustomersInBatch } from './create-customers-in-batch';
import { countRows, csvRecords } from './csv-file';
import { checkHeader, type ParsedRow, parseRow } from './csv-row';

// One run of a bulk import job, as the BullMQ worker calls it. It may run more than once for a job
// (a process died, Redis redelivered): it resumes after the last recorded batch, and a row of the
// interrupted batch meets its own claims and customer (ids derived from job and row), so no row is
// ever imported twice (docs/decisions/0012).

export type BulkImportDependencies = {
  eventSourcing: EventSourcing;
  blobs: BlobStore;
  clock: Clock;
  logger: Logger;
  /** The platform's settings, as POST /customers decides with them. */
  settingsOf: (context: RequestContext) => Promise<PlatformSettings>;
  /** Rows decided together before progress is recorded. */
  batchRows: number;
  /**
   * Batches written at once. Rows of batches in flight together race for a value they share (the
   * store lets one win); rows further apart are decided in file order.
   */
  batchesInFlight: number;
  /** A file with more data rows than this fails as a whole before any row is imported. */
  maxRows: number;
};

/**
 * Rows parsed between two turns of the event loop. A row costs at most a few patterns over cells of
 * at most CSV_CELL_MAX_CHARS, all linear, so a slice holds the loop well under a millisecond and
 * the service's request handlers (other platforms' reads) are answered between slices.
 */
export const PARSE_SLICE_ROWS = 50;

/** The rows of a batch parsed in slices, yielding to the event loop after each (docs/decisions/0024). */
export const parseRowsInSlices = async (
  header: readonly string[],
  rows: readonly { rowNumber: number; fields: string[] }[],
): Promise<{ row: number; parsed: ParsedRow }[]> => {
  const parsed: { row: number; parsed: ParsedRow }[] = [];
  for (let start = 0; start < rows.length; start += PARSE_SLICE_ROWS) {
    if (start > 0) await nextTurn();
    for (const { rowNumber, fields } of rows.slice(start, start + PARSE_SLICE_ROWS))
      parsed.push({ row: rowNumber, parsed: parseRow(header, fields, rowNumber) });
  }
  return parsed;
};

const contextOf = (job: { jobId: string; platformId: string }, requestId: string): RequestContext => ({
  platformId: job.platformId,
  actor: { kind: 'system', name: 'bulk-import' },
  requestId,
  // The upload request's story when the worker restored it (BulkImportQueue); the job's own id for a job queued before.
  correlationId: currentContext()?.correlationId ?? job.jobId,
});

const isTransient = (error: unknown): boolean => !(error instanceof DomainError) || error.status >= 500;

type Decide = (decision: (state: BulkImport) => BulkImportEvent[]) => Promise<BulkImport>;
type ProcessingJob = Extract<BulkImport, { status: 'PROCESSING' }>;
type RowFields = { rowNumber: number; fields: string[] };

/** What one run shares between its steps: the job as it started, its context, and the batches still writing. */
type ImportRun = { deps: BulkImportDependencies; job: ProcessingJob; context: RequestContext; decide: Decide; inFlight: Promise<void>[] };

export const runBulkImport = async (deps: BulkImportDependencies, jobId: string): Promise<BulkImport> => {
  const { eventSourcing, blobs, clock, logger } = deps;
  const load = async (): Promise<BulkImport> => {
    const { events } = await eventSourcing.store.readStream(jobId);
    return (events as unknown as BulkImportEvent[]).reduce(bulkImportDecider.evolve, bulkImportDecider.initialState());
  };
  let job = await load();
  // Not this database's job: another deployment shares the Redis prefix. Failing leaves it queued for its own workers.
  if (job.status === 'None') throw new Error(`Bulk import job ${jobId} is not in this service's event store; check REDIS_KEY_PREFIX.`);
  if (job.status === 'COMPLETED' || job.status === 'FAILED') return job;
  const context = contextOf(job, `${jobId}-worker`);
  const decide: Decide = async (decision) => (await eventSourcing.handle(jobId, bulkImportDecider, decision, context)).state;
  const fail = (reason: string) =>
    decide((state) =>
      finishBulkImport({ type: 'FinishBulkImport', data: { jobId, failureReason: reason }, metadata: { now: clock.now() } }, state),
    );

  const inFlight: Promise<void>[] = [];
  try {
    if (job.status === 'PENDING') {
      // Counted first, so progress.total is the file's row count from the first progress on.
      const total = await countRows(blobs, job.blobKey, deps.maxRows);
      if (total > deps.maxRows)
        return await fail(
          `The file has more than ${deps.maxRows} rows; split it into files of at most ${deps.maxRows} rows and upload each.`,
        );
      job = await decide((state) =>
        startBulkImport({ type: 'StartBulkImport', data: { jobId, total }, metadata: { now: clock.now() } }, state),
      );
    }
    if (job.status !== 'PROCESSING') return job;
    await importRows({ deps, job, context, decide, inFlight });
    return await decide((state) => finishBulkImport({ type: 'FinishBulkImport', data: { jobId }, metadata: { now: clock.now() } }, state));
  } catch (error) {
    // Nothing of this run may still be writing when the job is retried or ended.
    await Promise.allSettled(inFlight);
    if (isTransient(error) && !isCsvError(error)) throw error;
    // The file itself is unusable (malformed CSV, a header that changed under us, a missing blob): the whole job fails.
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ jobId, reason }, 'Bulk import failed.');
    return fail(reason);
  }
};

/** Reads the file after the rows an earlier run recorded, in batches of batchRows; resolves once every batch's progress is recorded. */
const importRows = async (run: ImportRun): Promise<void> => {
  const { deps, job } = run;
  const writer = batchWriter(run);
  let header: string[] | undefined;
  let rowNumber = 0;
  let batch: RowFields[] = [];
  for await (const record of csvRecords(deps.blobs, job.blobKey)) {
    if (!header) {
      header = record.map((name) => name.trim());
      checkHeader(header);
      continue;
    }
    rowNumber += 1;
    // Rows up to the recorded count were decided by an earlier run of this job.
    if (rowNumber <= job.progress.processed) continue;
    batch.push({ rowNumber, fields: record });
    if (batch.length >= deps.batchRows) {
      await writer.write(header, batch);
      batch = [];
    }
  }
  if (header && batch.length > 0) await writer.write(header, batch);
  await writer.recorded();
};

/**
 * Batches in flight: each is written as soon as it is read; its progress is recorded after its
 * rows are in the store and after the batch before it was recorded, so progress stays in file order.
 */
const batchWriter = ({ deps, job, context, decide, inFlight }: ImportRun) => {
  const { eventSourcing, clock } = deps;
  const { jobId } = job;
  let { processed, successful, failed } = job.progress;
  const batchJob = { jobId, platformId: job.platformId, acceptedAt: job.acceptedAt };
  let recorded: Promise<void> = Promise.resolve();
  const write = async (header: readonly string[], rows: readonly RowFields[]): Promise<void> => {
    const parsed = await parseRowsInSlices(header, rows);
    const valid = parsed.flatMap(({ row, parsed: result }) =>
      result.ok ? [{ rowNumber: row, correlationId: result.correlationId, body: result.body }] : [],
    );
    const created = deps
      .settingsOf(context)
      .then((settings) => createCustomersInBatch(eventSourcing, batchJob, valid, settings, clock.now(), context));
    const before = recorded;
    recorded = (async () => {
      const refused = await created;
      await before;
      // In file order: the rows the CSV rules refused and those the customer's command refused.
      const errors = parsed.flatMap(({ row, parsed: result }) => (!result.ok ? [result.error] : (refused.get(row) ?? [])));
      processed += rows.length;
      failed += errors.length;
      successful += rows.length - errors.length;
      await decide((state) =>
        recordBulkImportProgress(
          { type: 'RecordBulkImportProgress', data: { jobId, processed, successful, failed, errors }, metadata: { now: clock.now() } },
          state,
        ),
      );
    })();
    // Not swallowed: this same promise is awaited below (inFlight.shift) or by recorded() at the end,
    // where its failure is thrown and fails the job; this handler only keeps Node from calling it
    // unhandled in between.
    recorded.catch(() => undefined);
    inFlight.push(recorded);
    if (inFlight.length >= deps.batchesInFlight) await inFlight.shift();
  };
  return { write, recorded: () => recorded };
};

/**
 * The job's last attempt failed for a reason other than the file (the store or the platform service
 * kept failing): the job ends FAILED with that reason, so the platform hears BULK_UPLOAD.FAILED
 * instead of a job that stays PROCESSING once its queue entry is gone. Nothing to record for a job
 * this database does not know.
 */
export const failBulkImportForGood = async (
  deps: Pick<BulkImportDependencies, 'eventSourcing' | 'clock'>,
  jobId: string,
  reason: string,
): Promise<BulkImport | undefined> => {
  const { events } = await deps.eventSourcing.store.readStream(jobId);
  const job = (events as unknown as BulkImportEvent[]).reduce(bulkImportDecider.evolve, bulkImportDecider.initialState());
  if (job.status === 'None') return undefined;
  const context = contextOf(job, `${jobId}-worker`);
  const command = { type: 'FinishBulkImport' as const, data: { jobId, failureReason: reason }, metadata: { now: deps.clock.now() } };
  return (await deps.eventSourcing.handle(jobId, bulkImportDecider, (state) => finishBulkImport(command, state), context)).state;
};

/** The file, not the system, is at fault: csv-parse's errors (codes CSV_*) and a blob that is gone. */
const isCsvError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return error.name === 'CsvError' || error.name === 'BlobNotFoundError' || (typeof code === 'string' && code.startsWith('CSV_'));
};
