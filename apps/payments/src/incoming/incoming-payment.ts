import type { Event, IncomingTransactionRecord } from '@corridor/contracts';

// The IncomingPayment aggregate: one stream per UMA payment received by a customer, in the same
// Transaction id space as outgoing payments (stream id = the Transaction id), but with its own
// events and decider so the outgoing Transaction stream's files stay untouched
// (docs/decisions/0013-incoming-payments.md). As there, every event carries the transaction as it
// is right after the event, so the transactions read model, the integration events and the
// INCOMING_PAYMENT.* webhooks take it from the event alone.
//
// Phases (what the payment waits for; `dueAt` is the persisted timer the sweep job reads):
//   AWAITING_WEBHOOK   the INCOMING_PAYMENT.PENDING approval hook's answer; due: webhook error
//   AWAITING_PLATFORM  POST /transactions/{id}/approve|reject after a 202 (or a 422 answered by
//                      the sender); due: PAYMENT_APPROVAL_TIMED_OUT
//   SETTLING           approved; the deposit (a ledger credit) is being made; due: retry it
//   DONE               COMPLETED, REJECTED or FAILED

export type Deposit = { kind: 'INTERNAL_ACCOUNT' | 'EXTERNAL_ACCOUNT'; accountId: string; currency: string };
export type SenderRecord = { umaAddress: string; currency: string; profile: Record<string, string> };
export type IncomingPhase = 'AWAITING_WEBHOOK' | 'AWAITING_PLATFORM' | 'SETTLING' | 'DONE';
/** Who approved or rejected: the hook's answer, the platform's approve/reject, or Corridor for a platform with no webhookEndpoint. */
export type Decider = 'WEBHOOK' | 'PLATFORM' | 'AUTO';

type WithTransaction = { transaction: IncomingTransactionRecord };

/** requestFingerprint: the receive's, under an Idempotency-Key (decision 0028); a retry must match it. */
export type IncomingPaymentCreated = Event<
  'IncomingPaymentCreated',
  WithTransaction & { deposit: Deposit; sender: SenderRecord; grossAmount: string; requestFingerprint?: string }
>;
export type IncomingPaymentPending = Event<'IncomingPaymentPending', WithTransaction & { webhookAnswerDueAt: string }>;
export type IncomingPaymentDeferred = Event<
  'IncomingPaymentDeferred',
  WithTransaction & { answer: 202 | 422; requiredFields?: string[]; approvalDueAt: string }
>;
export type IncomingPaymentApproved = Event<
  'IncomingPaymentApproved',
  WithTransaction & { approvedBy: Decider; receiverCustomerInfo?: Record<string, unknown>; settleDueAt: string }
>;
export type IncomingPaymentCompleted = Event<'IncomingPaymentCompleted', WithTransaction>;
export type IncomingPaymentRejected = Event<'IncomingPaymentRejected', WithTransaction & { rejectedBy: Decider; reason?: string }>;
export type IncomingPaymentFailed = Event<'IncomingPaymentFailed', WithTransaction & { detail: string }>;
/** The deposit was refused after approval: the sender's funds go back to it (REFUNDED, OFFRAMP_FAILED). */
export type IncomingPaymentRefunded = Event<'IncomingPaymentRefunded', WithTransaction & { detail: string }>;

export type IncomingPaymentEvent =
  | IncomingPaymentCreated
  | IncomingPaymentPending
  | IncomingPaymentDeferred
  | IncomingPaymentApproved
  | IncomingPaymentCompleted
  | IncomingPaymentRejected
  | IncomingPaymentFailed
  | IncomingPaymentRefunded;

/** Every event type of the stream: registered in the transactions read model and the integration events. */
export const incomingPaymentEventTypes: readonly IncomingPaymentEvent['type'][] = [
  'IncomingPaymentCreated',
  'IncomingPaymentPending',
  'IncomingPaymentDeferred',
  'IncomingPaymentApproved',
  'IncomingPaymentCompleted',
  'IncomingPaymentRejected',
  'IncomingPaymentFailed',
  'IncomingPaymentRefunded',
];

/**
 * POST /transactions/{id}/confirm on an incoming payment: the outgoing streams' event type (the
 * read model and the integration events take it by type), carrying the incoming record. It
 * changes the record only, never the phase, so it is not one of incomingPaymentEventTypes (the
 * timer's projection has nothing to do with it).
 */
export type IncomingReceiptDeliveryConfirmed = Event<
  'ReceiptDeliveryConfirmed',
  WithTransaction & { transactionId: string; receiptDeliveryConfirmedAt: string }
>;
/** Everything an incoming payment's stream can hold. */
export type IncomingPaymentStreamEvent = IncomingPaymentEvent | IncomingReceiptDeliveryConfirmed;

export type IncomingPayment =
  | { kind: 'None' }
  | {
      kind: 'Received';
      transaction: IncomingTransactionRecord;
      deposit: Deposit;
      sender: SenderRecord;
      phase: IncomingPhase;
      dueAt: string | null;
    };

export const initialIncomingPayment = (): IncomingPayment => ({ kind: 'None' });

/** The phase and timer each event leaves the payment in. */
export const phaseAfter = (event: IncomingPaymentEvent): { phase: IncomingPhase; dueAt: string | null } => {
  switch (event.type) {
    case 'IncomingPaymentCreated':
      return { phase: 'AWAITING_WEBHOOK', dueAt: null };
    case 'IncomingPaymentPending':
      return { phase: 'AWAITING_WEBHOOK', dueAt: event.data.webhookAnswerDueAt };
    case 'IncomingPaymentDeferred':
      return { phase: 'AWAITING_PLATFORM', dueAt: event.data.approvalDueAt };
    case 'IncomingPaymentApproved':
      return { phase: 'SETTLING', dueAt: event.data.settleDueAt };
    case 'IncomingPaymentCompleted':
    case 'IncomingPaymentRejected':
    case 'IncomingPaymentFailed':
    case 'IncomingPaymentRefunded':
      return { phase: 'DONE', dueAt: null };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
};

export const evolveIncomingPayment = (state: IncomingPayment, event: IncomingPaymentStreamEvent): IncomingPayment => {
  if (event.type === 'IncomingPaymentCreated') {
    return {
      kind: 'Received',
      transaction: event.data.transaction,
      deposit: event.data.deposit,
      sender: event.data.sender,
      ...phaseAfter(event),
    };
  }
  if (state.kind !== 'Received') return state;
  if (event.type === 'ReceiptDeliveryConfirmed') return { ...state, transaction: event.data.transaction };
  return { ...state, transaction: event.data.transaction, ...phaseAfter(event) };
};

export const incomingPaymentDecider = { evolve: evolveIncomingPayment, initialState: initialIncomingPayment };
