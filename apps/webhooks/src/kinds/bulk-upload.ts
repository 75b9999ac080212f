import { subjects } from '@corridor/contracts';
import type { WebhookKind } from '../webhook-kind';

// BULK_UPLOAD.COMPLETED / FAILED from the customers service's BulkImportCompleted and
// BulkImportFailed (apps/customers/src/bulk/bulk-import.ts), with the job (BulkCustomerImportJob)
// as it was right after the event. Retried like every other platform webhook.
export const kind: WebhookKind = {
  name: 'bulk-upload',
  types: ['BULK_UPLOAD.COMPLETED', 'BULK_UPLOAD.FAILED'],
  plan(event) {
    if (event.service !== 'customers' || (event.type !== 'BulkImportCompleted' && event.type !== 'BulkImportFailed')) return null;
    return {
      type: event.type === 'BulkImportCompleted' ? 'BULK_UPLOAD.COMPLETED' : 'BULK_UPLOAD.FAILED',
      resourceId: event.streamId,
      render: { subject: subjects.customers.bulkImport.renderAt, request: { jobId: event.streamId, streamPosition: event.streamPosition } },
    };
  },
  retried: () => true,
};
