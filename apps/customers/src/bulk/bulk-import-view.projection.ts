import { EntitySchema } from '@mikro-orm/core';
import type { BulkImportErrorWire, BulkImportJobWire, BulkImportStatus } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type BulkImportEvent, bulkImportEventTypes } from './bulk-import';

/**
 * The job GET /customers/bulk/jobs/{jobId} shows at most this many row errors (the first, in
 * file order); every error is in the job's stream, and `progress.failed` counts them all.
 */
export const SHOWN_ERRORS_MAX = 1_000;

export type BulkImportRow = {
  id: string;
  platformId: string;
  status: BulkImportStatus;
  total: number;
  processed: number;
  successful: number;
  failed: number;
  errors: BulkImportErrorWire[];
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
};

export const BulkImportEntity = new EntitySchema<BulkImportRow>({
  name: 'BulkImportRow',
  tableName: 'bulk_import_jobs',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    status: { type: 'string' },
    total: { type: 'integer' },
    processed: { type: 'integer' },
    successful: { type: 'integer' },
    failed: { type: 'integer' },
    errors: { type: 'json' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
    completedAt: { type: 'Date', nullable: true },
  },
});

export const evolveBulkImportView = (row: BulkImportRow | null, recorded: RecordedEvent): BulkImportRow | null => {
  const event = recorded as unknown as BulkImportEvent;
  if (event.type === 'BulkImportAccepted') {
    const { jobId, platformId, acceptedAt } = event.data;
    const at = new Date(acceptedAt);
    return {
      id: jobId,
      platformId,
      status: 'PENDING',
      total: 0,
      processed: 0,
      successful: 0,
      failed: 0,
      errors: [],
      createdAt: at,
      updatedAt: at,
      completedAt: null,
    };
  }
  // Every other event follows the acceptance in the same stream.
  if (!row) return row;
  switch (event.type) {
    case 'BulkImportStarted':
      return { ...row, status: 'PROCESSING', total: event.data.total, updatedAt: new Date(event.data.startedAt) };
    case 'BulkImportProgressed': {
      const { processed, successful, failed, errors, updatedAt } = event.data;
      const room = SHOWN_ERRORS_MAX - row.errors.length;
      return {
        ...row,
        // A file that grew between the count and the import (it cannot: blobs are immutable) would still show processed ≤ total.
        total: Math.max(row.total, processed),
        processed,
        successful,
        failed,
        errors: room > 0 && errors.length > 0 ? [...row.errors, ...errors.slice(0, room)] : row.errors,
        updatedAt: new Date(updatedAt),
      };
    }
    case 'BulkImportCompleted':
      return { ...row, status: 'COMPLETED', updatedAt: new Date(event.data.completedAt), completedAt: new Date(event.data.completedAt) };
    case 'BulkImportFailed':
      return { ...row, status: 'FAILED', updatedAt: new Date(event.data.completedAt), completedAt: new Date(event.data.completedAt) };
    default:
      return row;
  }
};

export const bulkImportViewProjection: Projection<BulkImportRow> = {
  name: 'bulk_import_jobs',
  version: 1,
  canHandle: bulkImportEventTypes,
  entity: BulkImportEntity,
  keyOf: (event) => String(event.data['jobId']),
  evolve: evolveBulkImportView,
};

export const renderBulkImport = (row: BulkImportRow): BulkImportJobWire => ({
  id: row.id,
  status: row.status,
  progress: { total: row.total, processed: row.processed, successful: row.successful, failed: row.failed },
  errors: row.errors,
  ...(row.completedAt ? { completedAt: row.completedAt.toISOString() } : {}),
});

/** The job as GET showed it right after the event at `streamPosition` (webhook payloads); null for another platform's job. */
export const renderBulkImportAt = (
  events: readonly RecordedEvent[],
  streamPosition: number,
  platformId: string,
): BulkImportJobWire | null => {
  const row = events.filter((event) => event.streamPosition <= streamPosition).reduce<BulkImportRow | null>(evolveBulkImportView, null);
  return row && row.platformId === platformId ? renderBulkImport(row) : null;
};
