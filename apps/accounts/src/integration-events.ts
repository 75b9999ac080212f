import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';
import { publishedAccountOf } from './internal-accounts/published-account';

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

/**
 * An internal account's event as recorded, plus `account`: the InternalAccount right after it, as
 * renderAt would answer, when its writer stored the row (decision 0054), so webhooks render inline.
 */
const internalAccountData = (event: RecordedEvent): Record<string, unknown> => {
  const account = publishedAccountOf(event);
  return account ? { ...event.data, account } : event.data;
};

export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null => {
  if (published.has(event.type)) return integrationEvent('accounts', 'InternalAccount', event, internalAccountData(event));
  if (externalAccountEvents.has(event.type)) return integrationEvent('accounts', 'ExternalAccount', event);
  return null;
};
