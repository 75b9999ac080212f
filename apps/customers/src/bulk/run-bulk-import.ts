import type { BlobStore } from '@corridor/blob-store';
import { type BulkImportErrorWire, type Clock, type CreateCustomerData, DomainError, type RequestContext } from '@corridor/contracts';
import type { EventSourcing } from '@corridor/event-store';
import type { Logger } from 'pino';
import { type BulkImport, bulkImportDecider, type BulkImportEvent, rowRequestId } from './bulk-import';
import { finishBulkImport, recordBulkImportProgress, startBulkImport } from './bulk-import-commands';
import { countRows, csvRecords } from './csv-file';
import { checkHeader, parseRow } from './csv-row';

// One run of a bulk import job, as the BullMQ worker calls it. It may run more than once for a job
// (a process died, Redis redelivered): it resumes after the last recorded batch, and a row whose
// create went through before the crash is recognised by the request id it was sent with, so no row
// is ever imported twice (docs/decisions/0012).

export type RowOutcome = { ok: true } | { ok: false; error: BulkImportErrorWire };

export type BulkImportDependencies = {
  eventSourcing: EventSourcing;
  blobs: BlobStore;
  clock: Clock;
  logger: Logger;
  /** POST /customers's command: the same NATS request the gateway sends. */
  createCustomer: (body: CreateCustomerData, context: RequestContext) => Promise<unknown>;
  /** The request id of the first event of the platform's customer with this platformCustomerId, if there is one. */
  creatorRequestIdOf: (platformId: string, platformCustomerId: string) => Promise<string | null>;
  /** Rows decided together before progress is recorded. */
  batchRows: number;
  /** Creates in flight at once. */
  concurrency: number;
};

const contextOf = (job: { jobId: string; platformId: string }, requestId: string): RequestContext => ({
  platformId: job.platformId,
  actor: { kind: 'system', name: 'bulk-import' },
  requestId,
  correlationId: job.jobId,
});

/** Runs up to `limit` of the tasks at once, keeping results in order. */
const inPool = async <T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> => {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return results;
};

const isTransient = (error: unknown): boolean => !(error instanceof DomainError) || error.status >= 500;

export const runBulkImport = async (deps: BulkImportDependencies, jobId: string): Promise<BulkImport> => {
  const { eventSourcing, blobs, clock, logger } = deps;
  const load = async (): Promise<BulkImport> => {
    const { events } = await eventSourcing.store.readStream(jobId);
    return (events as unknown as BulkImportEvent[]).reduce(bulkImportDecider.evolve, bulkImportDecider.initialState());
  };
  let job = await load();
  if (job.status === 'None' || job.status === 'COMPLETED' || job.status === 'FAILED') return job;
  const context = contextOf(job, `${jobId}-worker`);
  const decide = async (decision: (state: BulkImport) => BulkImportEvent[]): Promise<BulkImport> =>
    (await eventSourcing.handle(jobId, bulkImportDecider, decision, context)).state;
  const fail = (reason: string) => decide((state) => finishBulkImport({ type: 'FinishBulkImport', data: { jobId, failureReason: reason }, metadata: { now: clock.now() } }, state));

  let header: string[] | undefined;
  try {
    if (job.status === 'PENDING') {
      // Counted first, so progress.total is the file's row count from the first progress on.
      const total = await countRows(blobs, job.blobKey);
      job = await decide((state) => startBulkImport({ type: 'StartBulkImport', data: { jobId, total }, metadata: { now: clock.now() } }, state));
    }
    if (job.status !== 'PROCESSING') return job;
    let { processed, successful, failed } = job.progress;
    let rowNumber = 0;
    let batch: { rowNumber: number; fields: string[] }[] = [];

    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      const outcomes = await inPool(rows.map(({ rowNumber: row, fields }) => () => importRow(deps, job as BulkImport & { status: 'PROCESSING' }, header!, fields, row)), deps.concurrency);
      const errors = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.error]));
      processed += rows.length;
      failed += errors.length;
      successful += rows.length - errors.length;
      job = await decide((state) =>
        recordBulkImportProgress({ type: 'RecordBulkImportProgress', data: { jobId, processed, successful, failed, errors }, metadata: { now: clock.now() } }, state),
      );
    };

    for await (const record of csvRecords(blobs, job.blobKey)) {
      if (!header) {
        header = record.map((name) => name.trim());
        checkHeader(header);
        continue;
      }
      rowNumber += 1;
      // Rows up to the recorded count were decided by an earlier run of this job.
      if (rowNumber <= processed) continue;
      batch.push({ rowNumber, fields: record });
      if (batch.length >= deps.batchRows) await flush();
    }
    await flush();
    return await decide((state) => finishBulkImport({ type: 'FinishBulkImport', data: { jobId }, metadata: { now: clock.now() } }, state));
  } catch (error) {
    if (isTransient(error) && !isCsvError(error)) throw error;
    // The file itself is unusable (malformed CSV, a header that changed under us, a missing blob): the whole job fails.
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ jobId, reason }, 'Bulk import failed.');
    return fail(reason);
  }
};

/** The file, not the system, is at fault: csv-parse's errors (codes CSV_*) and a blob that is gone. */
const isCsvError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return error.name === 'CsvError' || error.name === 'BlobNotFoundError' || (typeof code === 'string' && code.startsWith('CSV_'));
};

const importRow = async (
  deps: BulkImportDependencies,
  job: { jobId: string; platformId: string },
  header: readonly string[],
  fields: string[],
  rowNumber: number,
): Promise<RowOutcome> => {
  const parsed = parseRow(header, fields, rowNumber);
  if (!parsed.ok) return parsed;
  const requestId = rowRequestId(job.jobId, rowNumber);
  try {
    await deps.createCustomer(parsed.body, contextOf(job, requestId));
    return { ok: true };
  } catch (error) {
    // An outage is not the row's fault: the batch is abandoned and the job retried from its last progress.
    if (isTransient(error)) throw error;
    const refusal = error as DomainError;
    // Created by this very row in an earlier run of the job (the reply was lost to a crash or a timeout).
    if (refusal.code === 'CONFLICT' && parsed.body.platformCustomerId && (await deps.creatorRequestIdOf(job.platformId, parsed.body.platformCustomerId)) === requestId) {
      return { ok: true };
    }
    return {
      ok: false,
      error: { correlationId: parsed.correlationId, code: refusal.code, message: `Row ${rowNumber}: ${refusal.message}`, details: { row: rowNumber, ...(refusal.details ?? {}) } },
    };
  }
};
