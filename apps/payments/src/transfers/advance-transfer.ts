import type { Command, IncomingFailureReason, OutgoingFailureReason } from '@corridor/contracts';
import type { Transaction, TransactionEvent } from '../transactions/transaction';
import type { TransferDirection, TransferFailed, TransferFailure } from '../transactions/transfer-events';

// Moving a transfer along the sandbox rail. The outcome was fixed at creation; this decides, at
// the command's time, which step is due: a PENDING transfer is handed to the rail (PROCESSING) and,
// unless the rail keeps it waiting, finished at once (COMPLETED, or FAILED with the rail's reason);
// a transfer kept waiting (suffix 005) fails once its dueAt has passed. A terminal transfer, or one
// not yet due, decides nothing, so a repeated or concurrent sweep changes nothing.
//
// Money moves before these events are appended (transfers/transfer-processor.ts): a completion
// follows the hold's settlement (out) or the credit (in), a failure the hold's release (out).

export type AdvanceTransfer = Command<
  'AdvanceTransfer',
  {
    transactionId: string;
    /** The ledger refused to settle: the transfer-out's hold was already released, so nothing can be sent. */
    holdReleased?: boolean;
  },
  { now: Date; pendingSeconds: number }
>;

/**
 * The reference's outgoing failure reasons know no bank-side refusal, so the rail's own reason stays
 * in the event (railFailure) and the transaction shows the nearest reference value: a rail that
 * refuses the transfer before it moves (002, 003) failed its execution; a bank that takes it and
 * then rejects or times out (004, 005) failed after the transaction was posted. A failed pull
 * (transfer-in) is always QUOTE_EXECUTION_FAILED, the one incoming reason about executing a payment.
 */
export const failureReasonOf = (direction: TransferDirection, failure: TransferFailure): OutgoingFailureReason | IncomingFailureReason =>
  direction === 'IN' || failure === 'INSUFFICIENT_FUNDS' || failure === 'ACCOUNT_CLOSED' || failure === 'HOLD_RELEASED'
    ? 'QUOTE_EXECUTION_FAILED'
    : 'COUNTERPARTY_POST_TX_FAILED';

export const advanceTransfer = (command: AdvanceTransfer, state: Transaction): TransactionEvent[] => {
  if (state.kind !== 'Transfer') return [];
  const { transfer, transaction } = state;
  const now = command.metadata.now;
  const at = now.toISOString();
  if (now.getTime() < Date.parse(state.dueAt)) return [];
  const fail = (railFailure: TransferFailure, from: typeof transaction): TransferFailed => ({
    type: 'TransferFailed',
    data: {
      transactionId: transaction.id,
      railFailure,
      transaction: { ...from, status: 'FAILED', failureReason: failureReasonOf(transfer.direction, railFailure), updatedAt: at },
    },
  });
  if (command.data.holdReleased && (transaction.status === 'PENDING' || transaction.status === 'PROCESSING'))
    return [fail('HOLD_RELEASED', transaction)];
  if (transaction.status === 'PENDING') {
    const waits = transfer.outcome === 'PENDING_THEN_FAILS';
    const dueAt = waits ? new Date(now.getTime() + command.metadata.pendingSeconds * 1000).toISOString() : at;
    const processing = { ...transaction, status: 'PROCESSING' as const, updatedAt: at };
    const submitted: TransactionEvent = {
      type: 'TransferSubmitted',
      data: { transactionId: transaction.id, submittedAt: at, dueAt, transaction: processing },
    };
    if (waits) return [submitted];
    if (transfer.outcome === 'SUCCEEDS') {
      return [
        submitted,
        {
          type: 'TransferCompleted',
          data: { transactionId: transaction.id, transaction: { ...processing, status: 'COMPLETED', settledAt: at } },
        },
      ];
    }
    return [submitted, fail(transfer.outcome, processing)];
  }
  if (transaction.status === 'PROCESSING' && transfer.outcome === 'PENDING_THEN_FAILS') return [fail('PENDING_THEN_FAILS', transaction)];
  return [];
};

/** The ledger step the decided events need before they may be appended. */
export type LedgerStep = 'settle-hold' | 'release-hold' | 'credit' | 'none';

export const ledgerStepOf = (state: Transaction, events: TransactionEvent[]): LedgerStep => {
  if (state.kind !== 'Transfer') return 'none';
  const direction = state.transfer.direction;
  if (events.some((event) => event.type === 'TransferCompleted')) return direction === 'OUT' ? 'settle-hold' : 'credit';
  if (events.some((event) => event.type === 'TransferFailed')) return direction === 'OUT' ? 'release-hold' : 'none';
  return 'none';
};
