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

const later = (now: Date, ms: number): string => new Date(now.getTime() + ms).toISOString();

export const advanceExecution = (command: AdvanceExecution, state: Transaction): TransactionEvent[] => {
  const { transactionId, step, result } = command.data;
  const { now, delays } = command.metadata;
  // A transfer's stream (kind Transfer) has no quote to execute: as unknown as no stream.
  if (state.kind !== 'Quoted') throw new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`);
  const { execution, transaction } = state;
  // Already past this step, or not yet due: nothing to record.
  if (!execution || execution.step !== step || now.getTime() < Date.parse(execution.dueAt)) return [];
  const at = now.toISOString();
  const record = (changes: Partial<TransactionRecord>): TransactionRecord => ({ ...transaction, ...changes, updatedAt: at });
  const next = (changes: Partial<ExecutionState>): ExecutionState => ({ ...execution, dueAt: at, ...changes });

  switch (step) {
    case 'HOLD': {
      if (result.kind === 'HELD') {
        const atRail = next({ step: 'AWAIT_RAIL', dueAt: later(now, railDelayOf(execution.rail, delays)) });
        return [
          {
            type: 'PaymentFundsHeld',
            data: {
              transactionId,
              at,
              holdId: result.holdId,
              amount: result.amount,
              currency: result.currency,
              transaction: record({}),
              execution: atRail,
            },
          },
        ];
      }
      if (result.kind === 'REFUSED') {
        // Nothing was taken, so nothing is refunded.
        return [
          {
            type: 'PaymentFailed',
            data: {
              transactionId,
              at,
              transaction: record({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' }),
              execution: next({ step: 'DONE' }),
            },
          },
        ];
      }
      break;
    }
    case 'AWAIT_RAIL': {
      const { rail } = execution;
      const failure = railFailureOf(rail);
      if (result.kind === 'SETTLED' && rail !== 'CANCELLED' && !failure) {
        const after = rail === 'RETURNED' ? next({ step: 'AWAIT_RETURN', dueAt: later(now, delays.returnMs) }) : next({ step: 'DONE' });
        return [
          {
            type: 'PaymentCompleted',
            data: { transactionId, at, transaction: record({ status: 'COMPLETED', settledAt: at }), execution: after },
          },
        ];
      }
      if (result.kind !== 'DUE') break;
      if (rail === 'CANCELLED') return refund(state, execution, at, 'USER_CANCELLATION', heldRefund(execution), null);
      if (failure)
        return refund(
          state,
          execution,
          at,
          'TRANSACTION_FAILED',
          rail === 'PAYOUT_AND_REFUND_FAILED' && execution.funding === 'ACCOUNT' ? 'SETTLE_TO_RAIL' : heldRefund(execution),
          failure,
        );
      break;
    }
    case 'AWAIT_RETURN': {
      if (result.kind !== 'DUE') break;
      // The receiving bank sent the payment back: COMPLETED → FAILED, and the returned funds go back to the source.
      return refund(
        state,
        execution,
        at,
        'TRANSACTION_FAILED',
        execution.funding === 'ACCOUNT' ? 'CREDIT_BACK' : 'OUTSIDE_LEDGER',
        'COUNTERPARTY_POST_TX_FAILED',
      );
    }
    case 'REFUND': {
      if (result.kind !== 'REFUNDED') break;
      const refunded = transaction.refund;
      if (!refunded) break;
      const done = next({ step: 'DONE' });
      if (execution.refundMethod === 'SETTLE_TO_RAIL') {
        return [
          {
            type: 'PaymentRefundFailed',
            data: { transactionId, at, transaction: record({ refund: { ...refunded, status: 'FAILED' } }), execution: done },
          },
        ];
      }
      const completedRefund = record({ refund: { ...refunded, status: 'COMPLETED', settledAt: at } });
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
    }
    case 'DONE':
      return [];
  }
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
