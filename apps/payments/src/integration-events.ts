import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';
import type { TransactionChangedData, TransactionRecord } from '@corridor/contracts';
import { invitationClaimedEvent } from './invitations/invitation-events';
import { incomingPaymentEventTypes } from './incoming/incoming-payment';
import { receiptEventTypes, transferEventTypes } from './transactions/transfer-events';
import { executionStatusChanges } from './transactions/execution-events';

// Every status change of a transaction leaves the service with the whole transaction as it is
// after the change (TransactionChangedData; amounts as decimal strings): QuoteCreated is PENDING,
// QuoteExpired is EXPIRED. The webhooks service renders OUTGOING_PAYMENT.* from them with
// toTransactionWire from libs/contracts. The quote's own terms stay private. Execution adds
// PROCESSING, COMPLETED, FAILED and the refund's PENDING/COMPLETED/FAILED (transactions/execution-events.ts).
// Incoming payments' events (incoming/incoming-payment.ts) carry an IncomingTransactionRecord the
// same way; the webhooks service renders INCOMING_PAYMENT.* from them with toIncomingTransactionWire.
const statusChanges = new Set<string>([
  'QuoteCreated',
  'QuoteExpired',
  ...executionStatusChanges,
  ...incomingPaymentEventTypes,
  ...transferEventTypes,
  ...receiptEventTypes,
]);

export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null => {
  // An invitation's claim leaves as the UmaInvitation the INVITATION.CLAIMED webhook shows.
  if (event.type === 'InvitationClaimed') return invitationClaimedEvent(event);
  if (!statusChanges.has(event.type)) return null;
  const data: TransactionChangedData = { transaction: event.data['transaction'] as TransactionRecord };
  return integrationEvent('payments', 'Transaction', event, data);
};
