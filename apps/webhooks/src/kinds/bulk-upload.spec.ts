// BULK_UPLOAD.* from the end of a bulk import job, rendered by the customers service as of the event.
import { subjects } from '@corridor/contracts';
import type { IntegrationEventEnvelope } from '../webhook-kind';
import { kind } from './bulk-upload';

const jobId = 'Job:0196f1a0-0000-5000-8000-0000000000b1';
const event = (type: string, overrides: Partial<IntegrationEventEnvelope> = {}): IntegrationEventEnvelope => ({
  service: 'customers',
  aggregate: 'Job',
  eventId: 'e1',
  type,
  streamId: jobId,
  streamPosition: 7,
  occurredAt: '2026-01-01T00:00:00.000Z',
  platformId: 'Platform:p',
  data: { jobId },
  ...overrides,
});

describe('the bulk-upload webhook kind', () => {
  it('announces a completed job as BULK_UPLOAD.COMPLETED and a failed one as BULK_UPLOAD.FAILED, rendered at the event', () => {
    const render = { subject: subjects.customers.bulkImport.renderAt, request: { jobId, streamPosition: 7 } };
    expect(kind.plan(event('BulkImportCompleted'))).toEqual({ type: 'BULK_UPLOAD.COMPLETED', resourceId: jobId, render });
    expect(kind.plan(event('BulkImportFailed'))).toEqual({ type: 'BULK_UPLOAD.FAILED', resourceId: jobId, render });
    expect(kind.retried('BULK_UPLOAD.COMPLETED')).toBe(true);
  });

  it('says nothing of progress, of other services or of other events', () => {
    expect(kind.plan(event('BulkImportProgressed'))).toBeNull();
    expect(kind.plan(event('BulkImportCompleted', { service: 'payments' }))).toBeNull();
    expect(kind.plan(event('CustomerCreated', { aggregate: 'Customer' }))).toBeNull();
  });
});
