// NATS message data and wire shapes of bulk customer import (POST /customers/bulk/csv). The wire
// shapes are the reference's BulkCustomerImportJobAccepted and BulkCustomerImportJob.

export type BulkImportStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

/** One refused row: the reference's BulkCustomerImportErrorEntry (GridError + correlationId). */
export type BulkImportErrorWire = {
  /** The row's platformCustomerId, or `row_<n>` (n counts data rows from 1) when it has none. */
  correlationId: string;
  code: string;
  message: string;
  details?: Record<string, unknown>;
};

export type BulkImportProgressWire = { total: number; processed: number; successful: number; failed: number };

export type BulkImportJobWire = {
  id: string;
  status: BulkImportStatus;
  progress: BulkImportProgressWire;
  errors?: BulkImportErrorWire[];
  completedAt?: string;
};

export type BulkImportAcceptedWire = { jobId: string; status: 'PENDING' | 'PROCESSING' };

/** The gateway stored the upload in the blob store; the customers service takes it from there. */
export type CreateBulkImportData = { blobKey: string; sha256: string; size: number };
/** Reply: the job, and whether this upload started it (false: the same file was uploaded before). */
export type CreateBulkImportReply = { accepted: BulkImportAcceptedWire; created: boolean };

export type BulkImportJobIdData = { jobId: string };
/** Reply: BulkImportJobWire as of that position of the job's stream (webhook payloads). */
export type RenderBulkImportAtData = { jobId: string; streamPosition: number };
