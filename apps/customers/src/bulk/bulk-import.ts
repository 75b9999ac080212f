import { v5 as uuidv5 } from 'uuid';
import type { BulkImportErrorWire, BulkImportProgressWire, Event } from '@corridor/contracts';

// A bulk import job is one stream (`Job:<uuid>`): accepted when the upload is stored, started
// once the file's rows are counted, one progress event per batch of rows (carrying that batch's
// row errors), then completed or failed. The customers it creates are ordinary customer streams,
// created through the same command as POST /customers (docs/decisions/0012).

export type BulkImportAccepted = Event<
  'BulkImportAccepted',
  { jobId: string; platformId: string; blobKey: string; sha256: string; size: number; acceptedAt: string }
>;
export type BulkImportStarted = Event<'BulkImportStarted', { jobId: string; platformId: string; total: number; startedAt: string }>;
/** Counters are totals so far (not deltas), so a reader needs only the last one; errors are this batch's. */
export type BulkImportProgressed = Event<
  'BulkImportProgressed',
  {
    jobId: string;
    platformId: string;
    processed: number;
    successful: number;
    failed: number;
    errors: BulkImportErrorWire[];
    updatedAt: string;
  }
>;
export type BulkImportCompleted = Event<'BulkImportCompleted', { jobId: string; platformId: string; completedAt: string }>;
/** The file as a whole could not be imported (unreadable, or not one row succeeded). */
export type BulkImportFailed = Event<'BulkImportFailed', { jobId: string; platformId: string; reason: string; completedAt: string }>;

export type BulkImportEvent = BulkImportAccepted | BulkImportStarted | BulkImportProgressed | BulkImportCompleted | BulkImportFailed;
export const bulkImportEventTypes: readonly BulkImportEvent['type'][] = [
  'BulkImportAccepted',
  'BulkImportStarted',
  'BulkImportProgressed',
  'BulkImportCompleted',
  'BulkImportFailed',
];

type Known = { jobId: string; platformId: string; blobKey: string; sha256: string; acceptedAt: string; progress: BulkImportProgressWire };
export type BulkImport =
  | { status: 'None' }
  | (Known & { status: 'PENDING' })
  | (Known & { status: 'PROCESSING' })
  | (Known & { status: 'COMPLETED' | 'FAILED'; completedAt: string });

const noProgress: BulkImportProgressWire = { total: 0, processed: 0, successful: 0, failed: 0 };

export const evolveBulkImport = (state: BulkImport, event: BulkImportEvent): BulkImport => {
  switch (event.type) {
    case 'BulkImportAccepted': {
      const { jobId, platformId, blobKey, sha256, acceptedAt } = event.data;
      return { status: 'PENDING', jobId, platformId, blobKey, sha256, acceptedAt, progress: noProgress };
    }
    case 'BulkImportStarted':
      if (state.status === 'None') return state;
      return { ...state, status: 'PROCESSING', progress: { ...state.progress, total: event.data.total } };
    case 'BulkImportProgressed': {
      if (state.status === 'None') return state;
      const { processed, successful, failed } = event.data;
      return { ...state, progress: { total: Math.max(state.progress.total, processed), processed, successful, failed } };
    }
    case 'BulkImportCompleted':
      if (state.status === 'None') return state;
      return { ...state, status: 'COMPLETED', completedAt: event.data.completedAt };
    case 'BulkImportFailed':
      if (state.status === 'None') return state;
      return { ...state, status: 'FAILED', completedAt: event.data.completedAt };
  }
};

export const bulkImportDecider = {
  initialState: (): BulkImport => ({ status: 'None' }),
  evolve: evolveBulkImport,
};

// A fixed namespace for name-based (v5) job ids; never change it, or re-uploads stop matching.
const JOB_ID_NAMESPACE = '6f1c54a2-4f0e-4b8e-9d53-2b7a0c3e9a11';

/**
 * The job of a platform's file: the same content uploaded again by the same platform is the same
 * job, so a re-upload can never import the rows twice (docs/decisions/0012).
 */
export const bulkImportJobId = (platformId: string, sha256: string): string =>
  `Job:${uuidv5(`${platformId}\n${sha256}`, JOB_ID_NAMESPACE)}`;

/** BullMQ forbids ':' in custom job ids. */
export const queueJobIdOf = (jobId: string): string => jobId.replace('Job:', 'job-');

/** The request id recorded with each row's events, so a customer can be traced to its job and row. */
export const rowRequestId = (jobId: string, rowNumber: number): string => `${queueJobIdOf(jobId)}-row-${rowNumber}`;
