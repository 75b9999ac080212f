import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';

// Balance and status changes are what other services (and the webhooks) react to; every event of
// an internal account is one of them, so all are published.
const published = new Set(['InternalAccountOpened', 'AccountCredited', 'AccountDebited', 'FundsHeld', 'HoldSettled', 'HoldReleased', 'AccountStatusChanged']);

export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null =>
  published.has(event.type) ? integrationEvent('accounts', 'InternalAccount', event) : null;
