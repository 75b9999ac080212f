import { type Command, DomainError, invalidInput, type TransactionRecord } from '@corridor/contracts';
import type { Transaction, TransactionEvent } from '../transactions/transaction';
import type { ExecutionState, PaymentExecutionStarted, PaymentFailed, PaymentRefundStarted } from '../transactions/execution-events';
import { type RailDelays, type RailOutcome, railDelayOf } from '../transactions/payout-rail';

// Executing a quote starts its payment: PENDING → PROCESSING, and the processor takes it from
// there (hold on the source, the rail, settle or refund). A quote executes once: a second execute,
// racing or late, finds it no longer PENDING and is a 409, so no retry can move money twice.
//
// Two ways in: POST /quotes/{id}/execute for a quote paid from an internal account (funding
// ACCOUNT), and the arrival of a REALTIME_FUNDING quote's funds (POST /sandbox/send, funding
// REALTIME) with the amount that arrived; an amount other than the quote's fails the payment with
// FUNDING_AMOUNT_MISMATCH and sends the funds back.

export type ExecuteQuote = Command<
  'ExecuteQuote',
  {
    transactionId: string;
    funding: 'ACCOUNT' | 'REALTIME';
    /** What the sandbox rail will do with this payment, from its destination. */
    rail: RailOutcome;
    /** REALTIME only: what arrived, minor units of the sending currency. */
    fundedAmount?: string;
    /** The agent executing the quote (the request's actor), shown as the transaction's agentId. */
    agentId?: string;
  },
  { now: Date; delays: RailDelays }
>;

export const quoteConflict = (message: string, details: Record<string, unknown>): DomainError =>
  new DomainError('CONFLICT', 'conflict', message, details);

export const refundReferenceOf = (transactionId: string): string => `REFUND-${transactionId.slice(transactionId.indexOf(':') + 1)}`;

export const executeQuote = (command: ExecuteQuote, state: Transaction): TransactionEvent[] => {
  const { transactionId, funding, rail, fundedAmount, agentId } = command.data;
  const { now, delays } = command.metadata;
  // A transfer's stream (kind Transfer) has no quote to execute: as unknown as no stream.
  if (state.kind !== 'Quoted') throw new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`);
  const { quote, transaction } = state;
  const details = { quoteId: quote.quoteId, transactionId, status: transaction.status };
  if (transaction.status === 'EXPIRED' || (transaction.status === 'PENDING' && now.getTime() >= Date.parse(quote.expiresAt))) {
    throw quoteConflict(`Quote ${quote.quoteId} expired at ${quote.expiresAt} and can no longer be executed; create a new quote.`, {
      ...details,
      status: 'EXPIRED',
      expiresAt: quote.expiresAt,
    });
  }
  if (transaction.status !== 'PENDING') {
    throw quoteConflict(`Quote ${quote.quoteId} was already executed; its transaction ${transactionId} is ${transaction.status}.`, details);
  }
  const realtime = quote.source.sourceType === 'REALTIME_FUNDING';
  if (funding === 'ACCOUNT' && realtime) {
    throw invalidInput(
      `Quote ${quote.quoteId} is funded in real time: it executes when the funds in its paymentInstructions arrive, not on request.`,
      { field: 'quoteId' },
    );
  }
  if (funding === 'REALTIME' && !realtime) {
    throw invalidInput(`Quote ${quote.quoteId} is paid from an internal account: execute it with POST /quotes/{quoteId}/execute.`, {
      field: 'quoteId',
    });
  }

  const at = now.toISOString();
  const processing: TransactionRecord = {
    ...transaction,
    status: 'PROCESSING',
    ...(agentId !== undefined ? { agentId } : {}),
    updatedAt: at,
  };
  const execution: ExecutionState =
    funding === 'ACCOUNT'
      ? { step: 'HOLD', dueAt: at, funding, rail }
      : { step: 'AWAIT_RAIL', dueAt: new Date(now.getTime() + railDelayOf(rail, delays)).toISOString(), funding, rail };
  const started: PaymentExecutionStarted = {
    type: 'PaymentExecutionStarted',
    data: { transactionId, quoteId: quote.quoteId, at, transaction: processing, execution },
  };
  if (funding === 'ACCOUNT' || fundedAmount === undefined || fundedAmount === quote.totalSendingAmount) return [started];

  // The wrong amount arrived: the payment fails and the funds go back the way they came.
  const failedRecord: TransactionRecord = { ...processing, status: 'FAILED', failureReason: 'FUNDING_AMOUNT_MISMATCH' };
  const refunding: ExecutionState = { step: 'REFUND', dueAt: at, funding, rail, refundMethod: 'OUTSIDE_LEDGER' };
  const failed: PaymentFailed = { type: 'PaymentFailed', data: { transactionId, at, transaction: failedRecord, execution: refunding } };
  const refundStarted: PaymentRefundStarted = {
    type: 'PaymentRefundStarted',
    data: {
      transactionId,
      at,
      transaction: {
        ...failedRecord,
        refund: { reference: refundReferenceOf(transactionId), initiatedAt: at, status: 'PENDING', reason: 'TRANSACTION_FAILED' },
      },
      execution: refunding,
    },
  };
  return [{ ...started, data: { ...started.data, execution: refunding } }, failed, refundStarted];
};
