import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';
import type { TransactionChangedData, TransactionRecord } from '@corridor/contracts';
import { executionStatusChanges } from './execution/execution-events';

// Every status change of a transaction leaves the service with the whole transaction as it is
// after the change (TransactionChangedData; amounts as decimal strings): QuoteCreated is PENDING,
// QuoteExpired is EXPIRED. The webhooks service renders OUTGOING_PAYMENT.* from them with
// toTransactionWire from libs/contracts. The quote's own terms stay private.
// Execution adds PROCESSING, COMPLETED, FAILED and the refund's PENDING/COMPLETED/FAILED (execution/execution-events.ts).
const statusChanges = new Set<string>(['QuoteCreated', 'QuoteExpired', ...executionStatusChanges]);

export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null => {
  if (!statusChanges.has(event.type)) return null;
  const data: TransactionChangedData = { transaction: event.data['transaction'] as TransactionRecord };
  return integrationEvent('payments', 'Transaction', event, data);
};
