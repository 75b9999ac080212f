import type { TransactionRecord } from '@corridor/contracts';
import type { RailOutcome } from './payout-rail';

// The execution of an outgoing payment, as events of its Transaction stream (registered in
// transaction.ts, beside it). Every event carries the transaction as it is after it (like
// QuoteCreated) and the process manager's own state, `execution`: which step comes next and from
// when. The payment_executions read model is that state, and it is the persisted timer the
// processor sweeps, so a restarted service picks every payment up where its stream says it is.

/**
 * What the processor does next:
 * HOLD         reserve the sending amount on the source account (accounts.ledger.hold)
 * AWAIT_RAIL   the payout is at the rail; at dueAt the rail's outcome applies: a payout that
 *              completes first takes the held funds (settle) and credits an internal destination,
 *              so a client that sees COMPLETED sees the money moved
 * AWAIT_RETURN a completed payment the receiving bank returns at dueAt (005)
 * REFUND       give the money back (release the hold, credit the returned funds, or fail to)
 * DONE         nothing left
 */
export type ExecutionStep = 'HOLD' | 'AWAIT_RAIL' | 'AWAIT_RETURN' | 'REFUND' | 'DONE';

/** How a refund moves money back: its ledger operation, or none when the funds never reached the ledger. */
export type RefundMethod = 'RELEASE_HOLD' | 'CREDIT_BACK' | 'SETTLE_TO_RAIL' | 'OUTSIDE_LEDGER';

export type ExecutionState = {
  step: ExecutionStep;
  /** Not before this time (ISO); the processor's timer. */
  dueAt: string;
  /** ACCOUNT: the source is an internal account (held, then settled); REALTIME: the funds arrived from outside the ledger. */
  funding: 'ACCOUNT' | 'REALTIME';
  rail: RailOutcome;
  /** Set with the REFUND step. */
  refundMethod?: RefundMethod;
};

type ExecutionData = { transactionId: string; at: string; transaction: TransactionRecord; execution: ExecutionState };

/** PENDING → PROCESSING: the quote is executed (or its real-time funds arrived). */
export type PaymentExecutionStarted = { type: 'PaymentExecutionStarted'; data: ExecutionData & { quoteId: string } };
/** The sending amount is reserved on the source; the payout is at the rail. No status change. */
export type PaymentFundsHeld = { type: 'PaymentFundsHeld'; data: ExecutionData & { holdId: string; amount: string; currency: string } };
/**
 * → COMPLETED: the payout reached the destination, the hold is settled
 * and an internal destination credited (or a cancellation was refunded).
 */
export type PaymentCompleted = { type: 'PaymentCompleted'; data: ExecutionData };
/** → FAILED with failureReason. */
export type PaymentFailed = { type: 'PaymentFailed'; data: ExecutionData };
/** refund PENDING (OUTGOING_PAYMENT.REFUND_PENDING). */
export type PaymentRefundStarted = { type: 'PaymentRefundStarted'; data: ExecutionData };
/** refund COMPLETED: the money is back on the source. */
export type PaymentRefundCompleted = { type: 'PaymentRefundCompleted'; data: ExecutionData };
/** refund FAILED: the money stays with the rail. */
export type PaymentRefundFailed = { type: 'PaymentRefundFailed'; data: ExecutionData };

export type ExecutionEvent =
  | PaymentExecutionStarted
  | PaymentFundsHeld
  | PaymentCompleted
  | PaymentFailed
  | PaymentRefundStarted
  | PaymentRefundCompleted
  | PaymentRefundFailed;

export const executionEventTypes: readonly ExecutionEvent['type'][] = [
  'PaymentExecutionStarted',
  'PaymentFundsHeld',
  'PaymentCompleted',
  'PaymentFailed',
  'PaymentRefundStarted',
  'PaymentRefundCompleted',
  'PaymentRefundFailed',
];

/** The events that change what a client sees of the transaction (each is an OUTGOING_PAYMENT.* webhook). */
export const executionStatusChanges: readonly ExecutionEvent['type'][] = [
  'PaymentExecutionStarted',
  'PaymentCompleted',
  'PaymentFailed',
  'PaymentRefundStarted',
  'PaymentRefundCompleted',
  'PaymentRefundFailed',
];

export const isExecutionEvent = (event: { type: string }): event is ExecutionEvent =>
  (executionEventTypes as readonly string[]).includes(event.type);
