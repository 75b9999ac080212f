import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';

const published = new Set([
  'CustomerCreated',
  'CustomerUpdated',
  'CustomerVerificationStatusChanged',
  'CustomerDeleted',
  // Recorded in the customer's stream; the webhooks service announces them as VERIFICATION.*.
  'VerificationSubmitted',
  'VerificationDecided',
]);

/** Customer facts other services react to; uniqueness claims and owner details stay private to this service. */
export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null =>
  published.has(event.type) ? integrationEvent('customers', 'Customer', event) : null;
