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

/** The confirmation time to record, or null when the record already has it. */
const confirmationOf = (
  command: ConfirmReceipt,
  record: { receiptDeliveryConfirmedAt?: string },
): { confirmedAt: string; now: string } | null => {
  const now = command.metadata.now.toISOString();
  const confirmedAt =
    command.data.receiptDeliveryConfirmedAt === undefined ? now : new Date(command.data.receiptDeliveryConfirmedAt).toISOString();
  return record.receiptDeliveryConfirmedAt === confirmedAt ? null : { confirmedAt, now };
};

export const confirmReceipt = (command: ConfirmReceipt, state: Transaction): TransactionEvent[] => {
  const { transactionId } = command.data;
  if (state.kind === 'None') throw notFound(transactionId);
  const confirmation = confirmationOf(command, state.transaction);
  if (!confirmation) return [];
  const { confirmedAt, now } = confirmation;
  return [
    {
      type: 'ReceiptDeliveryConfirmed',
      data: {
        transactionId,
        receiptDeliveryConfirmedAt: confirmedAt,
        transaction: { ...state.transaction, receiptDeliveryConfirmedAt: confirmedAt, updatedAt: now },
      },
    },
  ];
};

export const confirmIncomingReceipt = (command: ConfirmReceipt, state: IncomingPayment): IncomingReceiptDeliveryConfirmed[] => {
  const { transactionId } = command.data;
  if (state.kind === 'None') throw notFound(transactionId);
  const confirmation = confirmationOf(command, state.transaction);
  if (!confirmation) return [];
  const { confirmedAt, now } = confirmation;
  return [
    {
      type: 'ReceiptDeliveryConfirmed',
      data: {
        transactionId,
        receiptDeliveryConfirmedAt: confirmedAt,
        transaction: { ...state.transaction, receiptDeliveryConfirmedAt: confirmedAt, updatedAt: now },
      },
    },
  ];
};
