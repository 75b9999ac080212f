import { type BulkImportErrorWire, type Command, DomainError } from '@corridor/contracts';
import type { BulkImport, BulkImportEvent } from './bulk-import';

// The four commands of a bulk import job, each a pure decider. The worker is the only writer after
// acceptance; the guards make a retried worker (BullMQ redelivers a job whose process died) safe.

export type AcceptBulkImport = Command<
  'AcceptBulkImport',
  { jobId: string; platformId: string; blobKey: string; sha256: string; size: number },
  { now: Date }
>;
export type StartBulkImport = Command<'StartBulkImport', { jobId: string; total: number }, { now: Date }>;
export type RecordBulkImportProgress = Command<
  'RecordBulkImportProgress',
  { jobId: string; processed: number; successful: number; failed: number; errors: BulkImportErrorWire[] },
  { now: Date }
>;
export type FinishBulkImport = Command<'FinishBulkImport', { jobId: string; failureReason?: string }, { now: Date }>;

const notFound = (jobId: string) => new DomainError('BULK_UPLOAD_JOB_NOT_FOUND', 'not_found', `Bulk upload job ${jobId} was not found.`);

/** A second upload of the same file is the first one's job: nothing new is recorded. */
export const acceptBulkImport = (command: AcceptBulkImport, job: BulkImport): BulkImportEvent[] => {
  if (job.status !== 'None') return [];
  const { jobId, platformId, blobKey, sha256, size } = command.data;
  return [
    { type: 'BulkImportAccepted', data: { jobId, platformId, blobKey, sha256, size, acceptedAt: command.metadata.now.toISOString() } },
  ];
};

export const startBulkImport = (command: StartBulkImport, job: BulkImport): BulkImportEvent[] => {
  if (job.status === 'None') throw notFound(command.data.jobId);
  // A retried worker counts the file again; the job keeps the total it started with.
  if (job.status !== 'PENDING') return [];
  if (!Number.isInteger(command.data.total) || command.data.total < 0)
    throw new Error(`A bulk import total must be a count, got ${command.data.total}.`);
  return [
    {
      type: 'BulkImportStarted',
      data: { jobId: job.jobId, platformId: job.platformId, total: command.data.total, startedAt: command.metadata.now.toISOString() },
    },
  ];
};

export const recordBulkImportProgress = (command: RecordBulkImportProgress, job: BulkImport): BulkImportEvent[] => {
  if (job.status === 'None') throw notFound(command.data.jobId);
  if (job.status !== 'PROCESSING')
    throw new DomainError(
      'CONFLICT',
      'conflict',
      `Bulk upload job ${job.jobId} is ${job.status}; progress is recorded only while PROCESSING.`,
    );
  const { processed, successful, failed, errors } = command.data;
  if (successful + failed !== processed)
    throw new Error(`Progress of ${job.jobId} does not add up: ${successful} + ${failed} ≠ ${processed}.`);
  // Rows are processed in file order and each batch once; a batch at or below the recorded count was recorded already.
  if (processed <= job.progress.processed) return [];
  return [
    {
      type: 'BulkImportProgressed',
      data: {
        jobId: job.jobId,
        platformId: job.platformId,
        processed,
        successful,
        failed,
        errors,
        updatedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};

/** COMPLETED when at least one row was imported or the file had none; FAILED when the file could not be read or every row was refused. */
export const finishBulkImport = (command: FinishBulkImport, job: BulkImport): BulkImportEvent[] => {
  if (job.status === 'None') throw notFound(command.data.jobId);
  if (job.status === 'COMPLETED' || job.status === 'FAILED') return [];
  const completedAt = command.metadata.now.toISOString();
  const { jobId, platformId, progress } = job;
  const failureReason =
    command.data.failureReason ??
    (progress.processed > 0 && progress.successful === 0 ? 'Every row of the file was refused; see errors.' : undefined);
  if (failureReason !== undefined) return [{ type: 'BulkImportFailed', data: { jobId, platformId, reason: failureReason, completedAt } }];
  return [{ type: 'BulkImportCompleted', data: { jobId, platformId, completedAt } }];
};
