import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';
import { publishedCustomerOf } from './customers/published-customer';

const published = new Set([
  'CustomerCreated',
  'CustomerUpdated',
  'CustomerVerificationStatusChanged',
  'CustomerDeleted',
  // Recorded in the customer's stream; the webhooks service announces them as VERIFICATION.*.
  'VerificationSubmitted',
  'VerificationDecided',
]);

// The end of a bulk import job (the webhooks service announces it as BULK_UPLOAD.*); its progress stays private.
const publishedJobEvents = new Set(['BulkImportCompleted', 'BulkImportFailed']);

/** Customer facts other services react to; uniqueness claims and owner details stay private to this service. */
export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null => {
  if (publishedJobEvents.has(event.type)) return integrationEvent('customers', 'Job', event);
  if (!published.has(event.type)) return null;
  // A new customer's KYC change carries the customer right after it (decision 0057), so its webhook renders inline.
  const customer = publishedCustomerOf(event);
  return integrationEvent('customers', 'Customer', event, customer ? { ...event.data, customer } : event.data);
};
