import { type Command, DomainError } from '@corridor/contracts';
import type { IncomingPayment, IncomingReceiptDeliveryConfirmed } from '../incoming/incoming-payment';
import type { Transaction, TransactionEvent } from './transaction';

// POST /transactions/{id}/confirm: the platform tells it delivered the transaction's receipt to
// its customer. receiptDeliveryConfirmedAt defaults to the command's time; confirming again
// records the new time (the reference: "updates the stored confirmation time"). Any transaction of
// the platform can be confirmed, whatever its status or direction: the receipt is the platform's
// obligation. Outgoing payments and transfers live in Transaction streams, incoming payments in
// IncomingPayment streams (decision 0013); both record the same event with their own record.

export type ConfirmReceipt = Command<'ConfirmReceipt', { transactionId: string; receiptDeliveryConfirmedAt?: string }, { now: Date }>;

const notFound = (transactionId: string): DomainError =>
  new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`, { transactionId });

/** The one rule for both stream kinds: the event to record with the record as confirmed, or none when it already is. */
const confirmed = <Record extends { receiptDeliveryConfirmedAt?: string }>(
  command: ConfirmReceipt,
  state: { kind: 'None' } | { kind: string; transaction: Record },
): { type: 'ReceiptDeliveryConfirmed'; data: { transactionId: string; receiptDeliveryConfirmedAt: string; transaction: Record } }[] => {
  const { transactionId } = command.data;
  if (state.kind === 'None' || !('transaction' in state)) throw notFound(transactionId);
  const now = command.metadata.now.toISOString();
  const requested = command.data.receiptDeliveryConfirmedAt;
  const confirmedAt = requested === undefined ? now : new Date(requested).toISOString();
  if (state.transaction.receiptDeliveryConfirmedAt === confirmedAt) return [];
  const transaction = { ...state.transaction, receiptDeliveryConfirmedAt: confirmedAt, updatedAt: now };
  return [{ type: 'ReceiptDeliveryConfirmed', data: { transactionId, receiptDeliveryConfirmedAt: confirmedAt, transaction } }];
};

export const confirmReceipt = (command: ConfirmReceipt, state: Transaction): TransactionEvent[] => confirmed(command, state);

export const confirmIncomingReceipt = (command: ConfirmReceipt, state: IncomingPayment): IncomingReceiptDeliveryConfirmed[] =>
  confirmed(command, state);
