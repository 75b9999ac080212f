import { toTransactionWire, type TransactionRecord, type WebhookType } from '@corridor/contracts';
import type { WebhookKind } from '../webhook-kind';

// OUTGOING_PAYMENT.* from the payments service's Transaction events. Each integration event
// carries the whole transaction as it is after the event (docs/decisions/0006-payments.md), so the
// payload is rendered from the event alone with toTransactionWire; no call back to payments. The
// refund sequence (REFUND_PENDING → REFUND_COMPLETED | REFUND_FAILED) has events of its own
// (apps/payments/src/transactions/execution-events.ts), whose transaction keeps its status and
// carries `refund`.
const typeOfEvent: Readonly<Record<string, WebhookType>> = {
  QuoteCreated: 'OUTGOING_PAYMENT.PENDING',
  QuoteExpired: 'OUTGOING_PAYMENT.EXPIRED',
  PaymentExecutionStarted: 'OUTGOING_PAYMENT.PROCESSING',
  PaymentCompleted: 'OUTGOING_PAYMENT.COMPLETED',
  PaymentFailed: 'OUTGOING_PAYMENT.FAILED',
  PaymentRefundStarted: 'OUTGOING_PAYMENT.REFUND_PENDING',
  PaymentRefundCompleted: 'OUTGOING_PAYMENT.REFUND_COMPLETED',
  PaymentRefundFailed: 'OUTGOING_PAYMENT.REFUND_FAILED',
  // A same-currency transfer-out (apps/payments/src/transactions/transfer-events.ts) is an
  // outgoing payment without a quote: the same webhooks for the same statuses.
  TransferCreated: 'OUTGOING_PAYMENT.PENDING',
  TransferSubmitted: 'OUTGOING_PAYMENT.PROCESSING',
  TransferCompleted: 'OUTGOING_PAYMENT.COMPLETED',
  TransferFailed: 'OUTGOING_PAYMENT.FAILED',
};

export const kind: WebhookKind = {
  name: 'outgoing-payment',
  types: [
    'OUTGOING_PAYMENT.PENDING',
    'OUTGOING_PAYMENT.PROCESSING',
    'OUTGOING_PAYMENT.COMPLETED',
    'OUTGOING_PAYMENT.FAILED',
    'OUTGOING_PAYMENT.EXPIRED',
    'OUTGOING_PAYMENT.REFUND_PENDING',
    'OUTGOING_PAYMENT.REFUND_COMPLETED',
    'OUTGOING_PAYMENT.REFUND_FAILED',
  ],
  plan(event) {
    if (event.service !== 'payments' || event.aggregate !== 'Transaction') return null;
    const transaction = event.data['transaction'] as TransactionRecord | undefined;
    const type = typeOfEvent[event.type];
    if (!transaction || transaction.type !== 'OUTGOING' || !type) return null;
    return {
      type,
      resourceId: transaction.id,
      render: { inline: toTransactionWire(transaction) as unknown as Record<string, unknown> },
    };
  },
  retried: () => true,
};
