import { type Command, DomainError } from '@corridor/contracts';
import type { Transaction, TransactionEvent } from './transaction';

// POST /transactions/{id}/confirm: the platform tells it delivered the transaction's receipt to
// its customer. receiptDeliveryConfirmedAt defaults to the command's time; confirming again
// records the new time (the reference: "updates the stored confirmation time"). Any transaction of
// the platform can be confirmed, whatever its status: the receipt is the platform's obligation.

export type ConfirmReceipt = Command<'ConfirmReceipt', { transactionId: string; receiptDeliveryConfirmedAt?: string }, { now: Date }>;

export const confirmReceipt = (command: ConfirmReceipt, state: Transaction): TransactionEvent[] => {
  const { transactionId } = command.data;
  if (state.kind === 'None') throw new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`, { transactionId });
  const now = command.metadata.now.toISOString();
  const confirmedAt = command.data.receiptDeliveryConfirmedAt === undefined ? now : new Date(command.data.receiptDeliveryConfirmedAt).toISOString();
  if (state.transaction.receiptDeliveryConfirmedAt === confirmedAt) return [];
  return [
    {
      type: 'ReceiptDeliveryConfirmed',
      data: { transactionId, receiptDeliveryConfirmedAt: confirmedAt, transaction: { ...state.transaction, receiptDeliveryConfirmedAt: confirmedAt, updatedAt: now } },
    },
  ];
};
