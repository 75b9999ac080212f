import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';

// Balance and status changes are what other services (and the webhooks) react to; every event of
// an internal account is one of them, so all are published.
const published = new Set([
  'InternalAccountOpened',
  'AccountCredited',
  'AccountDebited',
  'FundsHeld',
  'HoldSettled',
  'HoldReleased',
  'AccountStatusChanged',
  'AccountPrivacyChanged',
]);

// An external account's creation, verification result, status changes and deletion; uniqueness
// claims and the UMA-default bookkeeping stay private (the default shows on the account itself).
const externalAccountEvents = new Set([
  'ExternalAccountCreated',
  'BeneficiaryVerificationRecorded',
  'ExternalAccountStatusChanged',
  'ExternalAccountDeleted',
]);

export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null => {
  if (published.has(event.type)) return integrationEvent('accounts', 'InternalAccount', event);
  if (externalAccountEvents.has(event.type)) return integrationEvent('accounts', 'ExternalAccount', event);
  return null;
};
