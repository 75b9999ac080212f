// Pins down a bulk import job's life: accepted once per file, started with the row count, progress
// that only moves forward and adds up, and the end (COMPLETED, or FAILED when the file is unusable
// or every row was refused) recorded once, so a worker that runs a job again changes nothing.
import type { BulkImportErrorWire } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { type BulkImport, bulkImportDecider, type BulkImportEvent, bulkImportJobId } from './bulk-import';
import {
  type AcceptBulkImport,
  acceptBulkImport,
  type FinishBulkImport,
  finishBulkImport,
  type RecordBulkImportProgress,
  recordBulkImportProgress,
  type StartBulkImport,
  startBulkImport,
} from './bulk-import-commands';

const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000a1';
const sha256 = 'a'.repeat(64);
const jobId = bulkImportJobId(platformId, sha256);
const blobKey = 'bulk-imports/p/f.csv';
const now = new Date('2026-03-02T00:00:00.000Z');
const at = now.toISOString();

type BulkCommand = AcceptBulkImport | StartBulkImport | RecordBulkImportProgress | FinishBulkImport;
const given = deciderSpec<BulkImport, BulkCommand, BulkImportEvent>({
  ...bulkImportDecider,
  decide: (command, state) => {
    switch (command.type) {
      case 'AcceptBulkImport':
        return acceptBulkImport(command, state);
      case 'StartBulkImport':
        return startBulkImport(command, state);
      case 'RecordBulkImportProgress':
        return recordBulkImportProgress(command, state);
      case 'FinishBulkImport':
        return finishBulkImport(command, state);
    }
  },
}).given;

const accept: AcceptBulkImport = { type: 'AcceptBulkImport', data: { jobId, platformId, blobKey, sha256, size: 120 }, metadata: { now } };
const start = (total: number): StartBulkImport => ({ type: 'StartBulkImport', data: { jobId, total }, metadata: { now } });
const progress = (processed: number, successful: number, failed: number, errors: BulkImportErrorWire[] = []): RecordBulkImportProgress => ({
  type: 'RecordBulkImportProgress',
  data: { jobId, processed, successful, failed, errors },
  metadata: { now },
});
const finish = (failureReason?: string): FinishBulkImport => ({
  type: 'FinishBulkImport',
  data: { jobId, ...(failureReason ? { failureReason } : {}) },
  metadata: { now },
});

const accepted: BulkImportEvent = { type: 'BulkImportAccepted', data: { jobId, platformId, blobKey, sha256, size: 120, acceptedAt: at } };
const started = (total: number): BulkImportEvent => ({ type: 'BulkImportStarted', data: { jobId, platformId, total, startedAt: at } });
const progressed = (processed: number, successful: number, failed: number, errors: BulkImportErrorWire[] = []): BulkImportEvent => ({
  type: 'BulkImportProgressed',
  data: { jobId, platformId, processed, successful, failed, errors, updatedAt: at },
});
const rowError: BulkImportErrorWire = {
  correlationId: 'row_2',
  code: 'INVALID_INPUT',
  message: 'Row 2: fullName is required.',
  details: { row: 2 },
};

describe('the job id', () => {
  it('is the same for the same platform and content, and differs for another platform or another file', () => {
    expect(bulkImportJobId(platformId, sha256)).toBe(jobId);
    expect(jobId).toMatch(/^Job:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(bulkImportJobId('Platform:0196f1a0-0000-7000-8000-0000000000a2', sha256)).not.toBe(jobId);
    expect(bulkImportJobId(platformId, 'b'.repeat(64))).not.toBe(jobId);
  });
});

describe('AcceptBulkImport', () => {
  it('records a new job', () => given().when(accept).then([accepted]));
  it('records nothing for the same file again, whatever state its job is in', () => {
    given([accepted]).when(accept).thenNothingHappened();
    given([accepted, started(3), progressed(3, 3, 0), { type: 'BulkImportCompleted', data: { jobId, platformId, completedAt: at } }])
      .when(accept)
      .thenNothingHappened();
  });
});

describe('StartBulkImport', () => {
  it('starts a pending job with the file’s row count', () =>
    given([accepted])
      .when(start(10_000))
      .then([started(10_000)]));
  it('keeps the first count when a retried worker counts again', () =>
    given([accepted, started(10_000)])
      .when(start(10_000))
      .thenNothingHappened());
  it('refuses a job that does not exist', () =>
    given()
      .when(start(1))
      .thenThrows((error) => expect(error.code).toBe('BULK_UPLOAD_JOB_NOT_FOUND')));
});

describe('RecordBulkImportProgress', () => {
  it('records cumulative counters with the batch’s row errors', () =>
    given([accepted, started(4)])
      .when(progress(2, 1, 1, [rowError]))
      .then([progressed(2, 1, 1, [rowError])]));
  it('ignores a batch at or below what is recorded (a re-run of a recorded batch)', () =>
    given([accepted, started(4), progressed(2, 1, 1, [rowError])])
      .when(progress(2, 1, 1, [rowError]))
      .thenNothingHappened());
  it('refuses counters that do not add up', () =>
    given([accepted, started(4)])
      .when(progress(2, 2, 1))
      .thenThrows());
  it('refuses progress before the job started and after it ended', () => {
    given([accepted])
      .when(progress(1, 1, 0))
      .thenThrows((error) => expect(error.code).toBe('CONFLICT'));
    given([accepted, started(1), progressed(1, 1, 0), { type: 'BulkImportCompleted', data: { jobId, platformId, completedAt: at } }])
      .when(progress(2, 2, 0))
      .thenThrows((error) => expect(error.code).toBe('CONFLICT'));
  });
});

describe('FinishBulkImport', () => {
  it('completes a job with at least one imported row, row errors or not', () =>
    given([accepted, started(4), progressed(4, 3, 1, [rowError])])
      .when(finish())
      .then([{ type: 'BulkImportCompleted', data: { jobId, platformId, completedAt: at } }]));
  it('completes a file without data rows', () =>
    given([accepted, started(0)])
      .when(finish())
      .then([{ type: 'BulkImportCompleted', data: { jobId, platformId, completedAt: at } }]));
  it('fails a job whose every row was refused', () =>
    given([accepted, started(2), progressed(2, 0, 2)])
      .when(finish())
      .then([
        {
          type: 'BulkImportFailed',
          data: { jobId, platformId, reason: 'Every row of the file was refused; see errors.', completedAt: at },
        },
      ]));
  it('fails a job whose file is unusable, even before it started', () =>
    given([accepted])
      .when(finish('Invalid Closing Quote'))
      .then([{ type: 'BulkImportFailed', data: { jobId, platformId, reason: 'Invalid Closing Quote', completedAt: at } }]));
  it('records the end once', () =>
    given([accepted, started(1), progressed(1, 1, 0), { type: 'BulkImportCompleted', data: { jobId, platformId, completedAt: at } }])
      .when(finish('late'))
      .thenNothingHappened());
});
