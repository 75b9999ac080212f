import {
  type IncomingPaymentWebhookDataWire,
  type IncomingTransactionRecord,
  toIncomingTransactionWire,
  type WebhookType,
} from '@corridor/contracts';
import type { WebhookKind } from '../webhook-kind';

// INCOMING_PAYMENT.PENDING / COMPLETED / FAILED from the payments service's incoming payment
// events (apps/payments/src/incoming/incoming-payment.ts), each carrying the transaction right
// after the event, so the webhook is rendered inline. PENDING is the approval hook: it is sent
// once and never retried (the reference's rule), and its answer goes back to payments
// (delivery/approval-report.ts). A rejection (REJECTED) and a refused deposit (REFUNDED) are
// reported as INCOMING_PAYMENT.FAILED, the reference having no other terminal type.
const typesByEvent: Readonly<Record<string, WebhookType>> = {
  IncomingPaymentPending: 'INCOMING_PAYMENT.PENDING',
  IncomingPaymentCompleted: 'INCOMING_PAYMENT.COMPLETED',
  IncomingPaymentFailed: 'INCOMING_PAYMENT.FAILED',
  IncomingPaymentRejected: 'INCOMING_PAYMENT.FAILED',
  IncomingPaymentRefunded: 'INCOMING_PAYMENT.FAILED',
};

export const APPROVAL_HOOK: WebhookType = 'INCOMING_PAYMENT.PENDING';

export const kind: WebhookKind = {
  name: 'incoming-payment',
  types: ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED', 'INCOMING_PAYMENT.FAILED'],
  plan(event) {
    if (event.service !== 'payments' || event.aggregate !== 'Transaction') return null;
    const type = typesByEvent[event.type];
    const transaction = event.data['transaction'] as IncomingTransactionRecord | undefined;
    if (!type || transaction?.type !== 'INCOMING') return null;
    const data: IncomingPaymentWebhookDataWire = { ...toIncomingTransactionWire(transaction), requestedReceiverCustomerInfoFields: [] };
    return { type, resourceId: event.streamId, render: { inline: data } };
  },
  retried: (type) => type !== APPROVAL_HOOK,
};
