// Pins down the job as GET shows it: counters from the last progress, row errors in file order up
// to SHOWN_ERRORS_MAX, completedAt only once the job ended, and the webhook rendering of a position.
import type { RecordedEvent } from '@corridor/event-store';
import type { BulkImportEvent } from './bulk-import';
import { evolveBulkImportView, renderBulkImport, renderBulkImportAt, SHOWN_ERRORS_MAX } from './bulk-import-view.projection';

const jobId = 'Job:0196f1a0-0000-5000-8000-0000000000b1';
const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000a1';
const at = '2026-03-02T00:00:00.000Z';

const recorded = (events: BulkImportEvent[]): RecordedEvent[] =>
  events.map(
    (event, index) =>
      ({
        eventId: `e${index}`,
        streamId: jobId,
        streamPosition: index + 1,
        globalPosition: BigInt(index + 1),
        type: event.type,
        data: event.data as Record<string, unknown>,
        metadata: {
          platformId,
          correlationId: jobId,
          requestId: 'r',
          actor: { kind: 'system', name: 'bulk-import' },
          occurredAt: at,
          schemaVersion: 1,
        },
      }) as RecordedEvent,
  );
const error = (row: number) => ({ correlationId: `row_${row}`, code: 'INVALID_INPUT', message: `Row ${row}: bad.`, details: { row } });
const accepted: BulkImportEvent = {
  type: 'BulkImportAccepted',
  data: { jobId, platformId, blobKey: 'k', sha256: 's', size: 1, acceptedAt: at },
};
const started: BulkImportEvent = { type: 'BulkImportStarted', data: { jobId, platformId, total: 4, startedAt: at } };
const progressed = (processed: number, failed: number, errors = [] as ReturnType<typeof error>[]): BulkImportEvent => ({
  type: 'BulkImportProgressed',
  data: { jobId, platformId, processed, successful: processed - failed, failed, errors, updatedAt: at },
});
const fold = (events: BulkImportEvent[]) => recorded(events).reduce(evolveBulkImportView, null);

describe('the bulk import job view', () => {
  it('is PENDING with zero progress once accepted, PROCESSING with the total once started', () => {
    expect(renderBulkImport(fold([accepted])!)).toEqual({
      id: jobId,
      status: 'PENDING',
      progress: { total: 0, processed: 0, successful: 0, failed: 0 },
      errors: [],
    });
    expect(renderBulkImport(fold([accepted, started])!)).toMatchObject({ status: 'PROCESSING', progress: { total: 4, processed: 0 } });
  });

  it('takes the counters of the last progress and appends each batch’s errors in order', () => {
    const row = fold([accepted, started, progressed(2, 1, [error(2)]), progressed(4, 2, [error(3)])])!;
    expect(renderBulkImport(row)).toMatchObject({
      status: 'PROCESSING',
      progress: { total: 4, processed: 4, successful: 2, failed: 2 },
      errors: [error(2), error(3)],
    });
    expect(renderBulkImport(row).completedAt).toBeUndefined();
  });

  it('shows completedAt once COMPLETED or FAILED', () => {
    expect(
      renderBulkImport(
        fold([accepted, started, progressed(4, 0), { type: 'BulkImportCompleted', data: { jobId, platformId, completedAt: at } }])!,
      ),
    ).toMatchObject({ status: 'COMPLETED', completedAt: at });
    expect(
      renderBulkImport(fold([accepted, { type: 'BulkImportFailed', data: { jobId, platformId, reason: 'x', completedAt: at } }])!),
    ).toMatchObject({ status: 'FAILED', completedAt: at });
  });

  it(`shows the first ${SHOWN_ERRORS_MAX} errors while failed counts them all`, () => {
    const many = Array.from({ length: SHOWN_ERRORS_MAX + 5 }, (_, index) => error(index + 1));
    const row = fold([
      accepted,
      started,
      progressed(600, 600, many.slice(0, 600)),
      progressed(SHOWN_ERRORS_MAX + 5, SHOWN_ERRORS_MAX + 5, many.slice(600)),
    ])!;
    expect(row.errors).toHaveLength(SHOWN_ERRORS_MAX);
    expect(row.errors.at(-1)).toEqual(error(SHOWN_ERRORS_MAX));
    expect(row.failed).toBe(SHOWN_ERRORS_MAX + 5);
  });

  it('renders the job as of a stream position for its own platform only', () => {
    const events = recorded([accepted, started, progressed(2, 0), progressed(4, 0)]);
    expect(renderBulkImportAt(events, 3, platformId)).toMatchObject({ progress: { processed: 2 } });
    expect(renderBulkImportAt(events, 3, 'Platform:other')).toBeNull();
  });
});
