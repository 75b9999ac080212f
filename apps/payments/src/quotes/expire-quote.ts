import { type Command, DomainError } from '@corridor/contracts';
import type { QuoteExpired, Transaction, TransactionEvent } from '../transactions/transaction';

// A quote not executed by its expiresAt can no longer be: its transaction ends EXPIRED with
// failureReason QUOTE_EXPIRED. The expiry sweeper sends this command for PENDING quotes it finds
// past their time; the command's own time decides, so a sweeper running early changes nothing,
// and one that repeats (after a crash, on two replicas) changes nothing either.

export type ExpireQuote = Command<'ExpireQuote', { transactionId: string }, { now: Date }>;

export const expireQuote = (command: ExpireQuote, state: Transaction): TransactionEvent[] => {
  const { transactionId } = command.data;
  if (state.kind === 'None') throw new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`);
  // A transfer has no quote to expire.
  if (state.kind !== 'Quoted') return [];
  const { quote, transaction } = state;
  if (transaction.status !== 'PENDING') return [];
  const now = command.metadata.now;
  if (now.getTime() < Date.parse(quote.expiresAt)) return [];
  const expiredAt = now.toISOString();
  const expired: QuoteExpired = {
    type: 'QuoteExpired',
    data: {
      quoteId: quote.quoteId,
      transactionId,
      expiredAt,
      transaction: { ...transaction, status: 'EXPIRED', failureReason: 'QUOTE_EXPIRED', updatedAt: expiredAt },
    },
  };
  return [expired];
};
