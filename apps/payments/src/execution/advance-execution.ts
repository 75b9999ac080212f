import { type Command, DomainError, type OutgoingFailureReason, type RefundReason, type TransactionRecord } from '@corridor/contracts';
import type { Transaction, TransactionEvent } from '../transactions/transaction';
import { refundReferenceOf } from './execute-quote';
import type { ExecutionEvent, ExecutionState, ExecutionStep, RefundMethod } from '../transactions/execution-events';
import { type RailDelays, railDelayOf, railFailureOf } from '../transactions/payout-rail';

// One step of a payment's execution is done (or due): record what happened and what comes next.
// The processor performs the step's effect (a ledger operation named by the transaction id and
// the step, so repeating it changes nothing) and then sends this command naming the step it
// completed. A command for a step the payment has already left is a no-op, so a step performed
// twice (after a crash, by two replicas, by the sweep and the in-process kick at once) is
// recorded once.

export type StepResult =
  /** HOLD: the source had the funds; they are reserved. */
  | { kind: 'HELD'; holdId: string; amount: string; currency: string }
  /** HOLD: the accounts service refused (insufficient funds, frozen or closed account). */
  | { kind: 'REFUSED'; reason: string }
  /** AWAIT_RAIL for an outcome that fails or is cancelled, AWAIT_RETURN: the rail's time has come. */
  | { kind: 'DUE' }
  /** AWAIT_RAIL for an outcome that completes: the hold is settled and an internal destination credited. */
  | { kind: 'SETTLED' }
  /** REFUND: the refund's ledger operation is done (or needed none). */
  | { kind: 'REFUNDED' };

export type AdvanceExecution = Command<
  'AdvanceExecution',
  { transactionId: string; step: ExecutionStep; result: StepResult },
  { now: Date; delays: RailDelays }
>;

type Quoted = Extract<Transaction, { kind: 'Quoted' }>;

/** What every phase decides from: the payment at its current step, the command's time and the rail's delays. */
type Phase = { state: Quoted; execution: ExecutionState; transactionId: string; now: Date; at: string; delays: RailDelays };

/** A phase's events, or undefined when the result cannot end that step (a programming error: see advanceExecution). */
type PhaseDecision = (phase: Phase, result: StepResult) => ExecutionEvent[] | undefined;

const later = (now: Date, ms: number): string => new Date(now.getTime() + ms).toISOString();

/** The transaction as it is after the event: the changes, at the command's time. */
const recordOf = (phase: Phase, changes: Partial<TransactionRecord>): TransactionRecord => ({
  ...phase.state.transaction,
  ...changes,
  updatedAt: phase.at,
});

/** The execution's next step, due at once unless the changes say when. */
const nextOf = (phase: Phase, changes: Partial<ExecutionState>): ExecutionState => ({ ...phase.execution, dueAt: phase.at, ...changes });

/** HOLD: the funds are reserved and the payout is at the rail, or the source refused and the payment fails. */
const afterHold: PhaseDecision = (phase, result) => {
  const { transactionId, at, execution, now, delays } = phase;
  if (result.kind === 'HELD') {
    const atRail = nextOf(phase, { step: 'AWAIT_RAIL', dueAt: later(now, railDelayOf(execution.rail, delays)) });
    const { holdId, amount, currency } = result;
    return [
      {
        type: 'PaymentFundsHeld',
        data: { transactionId, at, holdId, amount, currency, transaction: recordOf(phase, {}), execution: atRail },
      },
    ];
  }
  if (result.kind !== 'REFUSED') return undefined;
  // Nothing was taken, so nothing is refunded.
  const transaction = recordOf(phase, { status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
  return [{ type: 'PaymentFailed', data: { transactionId, at, transaction, execution: nextOf(phase, { step: 'DONE' }) } }];
};

/** AWAIT_RAIL: a payout that completes is settled; one that fails or is cancelled, once due, is refunded. */
const afterRail: PhaseDecision = (phase, result) => {
  const { transactionId, at, execution, now, delays } = phase;
  const { rail } = execution;
  const failure = railFailureOf(rail);
  if (result.kind === 'SETTLED' && rail !== 'CANCELLED' && !failure) {
    const after =
      rail === 'RETURNED' ? nextOf(phase, { step: 'AWAIT_RETURN', dueAt: later(now, delays.returnMs) }) : nextOf(phase, { step: 'DONE' });
    const transaction = recordOf(phase, { status: 'COMPLETED', settledAt: at });
    return [{ type: 'PaymentCompleted', data: { transactionId, at, transaction, execution: after } }];
  }
  if (result.kind !== 'DUE') return undefined;
  if (rail === 'CANCELLED') return refund(phase.state, execution, at, 'USER_CANCELLATION', heldRefund(execution), null);
  if (!failure) return undefined;
  const method = rail === 'PAYOUT_AND_REFUND_FAILED' && execution.funding === 'ACCOUNT' ? 'SETTLE_TO_RAIL' : heldRefund(execution);
  return refund(phase.state, execution, at, 'TRANSACTION_FAILED', method, failure);
};

/** AWAIT_RETURN: the receiving bank sent the payment back: COMPLETED → FAILED, and the returned funds go back to the source. */
const afterReturn: PhaseDecision = ({ state, execution, at }, result) => {
  if (result.kind !== 'DUE') return undefined;
  const method = execution.funding === 'ACCOUNT' ? 'CREDIT_BACK' : 'OUTSIDE_LEDGER';
  return refund(state, execution, at, 'TRANSACTION_FAILED', method, 'COUNTERPARTY_POST_TX_FAILED');
};

/** REFUND: the refund's ledger operation is done; the money is back, or (007) stays with the rail. */
const afterRefund: PhaseDecision = (phase, result) => {
  const { transactionId, at, execution } = phase;
  const refunded = phase.state.transaction.refund;
  if (result.kind !== 'REFUNDED' || !refunded) return undefined;
  const done = nextOf(phase, { step: 'DONE' });
  if (execution.refundMethod === 'SETTLE_TO_RAIL') {
    const transaction = recordOf(phase, { refund: { ...refunded, status: 'FAILED' } });
    return [{ type: 'PaymentRefundFailed', data: { transactionId, at, transaction, execution: done } }];
  }
  const completedRefund = recordOf(phase, { refund: { ...refunded, status: 'COMPLETED', settledAt: at } });
  const events: ExecutionEvent[] = [
    { type: 'PaymentRefundCompleted', data: { transactionId, at, transaction: completedRefund, execution: done } },
  ];
  // A cancellation, once refunded, is resolved: the reference's REFUND_COMPLETED → COMPLETED.
  if (refunded.reason === 'USER_CANCELLATION') {
    events.push({
      type: 'PaymentCompleted',
      data: { transactionId, at, transaction: { ...completedRefund, status: 'COMPLETED' }, execution: done },
    });
  }
  return events;
};

/** One decision per step; DONE has nothing left to record. */
const phases: Readonly<Record<ExecutionStep, PhaseDecision>> = {
  HOLD: afterHold,
  AWAIT_RAIL: afterRail,
  AWAIT_RETURN: afterReturn,
  REFUND: afterRefund,
  DONE: () => [],
};

export const advanceExecution = (command: AdvanceExecution, state: Transaction): TransactionEvent[] => {
  const { transactionId, step, result } = command.data;
  const { now, delays } = command.metadata;
  // A transfer's stream (kind Transfer) has no quote to execute: as unknown as no stream.
  if (state.kind !== 'Quoted') throw new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`);
  const { execution } = state;
  // Already past this step, or not yet due: nothing to record.
  if (!execution || execution.step !== step || now.getTime() < Date.parse(execution.dueAt)) return [];
  const events = phases[step]({ state, execution, transactionId, now, at: now.toISOString(), delays }, result);
  if (events) return events;
  throw new DomainError(
    'INVALID_STATE_TRANSITION',
    'conflict',
    `Step ${step} of transaction ${transactionId} cannot end with ${result.kind}.`,
    { step, result: result.kind },
  );
};

const heldRefund = (execution: ExecutionState): RefundMethod => (execution.funding === 'ACCOUNT' ? 'RELEASE_HOLD' : 'OUTSIDE_LEDGER');

/**
 * The reference's refund sequence: FAILED (when there is a failure reason) → REFUND_PENDING, in
 * one append; the processor then moves the money and records REFUND_COMPLETED or REFUND_FAILED.
 */
const refund = (
  state: Quoted,
  current: ExecutionState,
  at: string,
  reason: RefundReason,
  refundMethod: RefundMethod,
  failure: OutgoingFailureReason | null,
): ExecutionEvent[] => {
  const transactionId = state.transaction.id;
  const execution: ExecutionState = { ...current, step: 'REFUND', dueAt: at, refundMethod };
  const failed: TransactionRecord = failure
    ? { ...state.transaction, status: 'FAILED', failureReason: failure, updatedAt: at }
    : { ...state.transaction, updatedAt: at };
  const pending: TransactionRecord = {
    ...failed,
    refund: { reference: refundReferenceOf(transactionId), initiatedAt: at, status: 'PENDING', reason },
  };
  return [
    ...(failure ? [{ type: 'PaymentFailed' as const, data: { transactionId, at, transaction: failed, execution } }] : []),
    { type: 'PaymentRefundStarted', data: { transactionId, at, transaction: pending, execution } },
  ];
};
