import { type Command, DomainError, type TransactionRecord } from '@corridor/contracts';
import type { Transaction, TransactionEvent } from '../transactions/transaction';
import type { TransferCreated, TransferTerms } from '../transactions/transfer-events';

// Opening a transfer's Transaction stream. The parties were looked up and (for transfer-out) the
// money already held before this runs, so the decision is only about the stream: a new id opens
// it PENDING; the same id again (a retry under the same Idempotency-Key, or its racing twin) is a
// no-op when it asks for the same transfer and a 409 when it asks for a different one.

export type CreateTransfer = Command<
  'CreateTransfer',
  {
    transfer: Omit<TransferTerms, 'createdAt'>;
    /** Who the transaction belongs to (the internal account's customer, or the platform itself). */
    customerId: string;
    platformCustomerId: string;
    /** Who is on the other side, as the external account's beneficiary names them (FULL_NAME …). */
    counterpartyInformation?: Record<string, string>;
  },
  { now: Date }
>;

export const idempotencyConflict = (transactionId: string): DomainError =>
  new DomainError('CONFLICT', 'conflict', `This Idempotency-Key was already used with a different request: it created transfer ${transactionId}. Use a new key for a new transfer.`, {
    transactionId,
  });

export const createTransfer = (command: CreateTransfer, state: Transaction): TransactionEvent[] => {
  const { transfer, customerId, platformCustomerId, counterpartyInformation } = command.data;
  if (state.kind === 'Transfer' && state.transfer.fingerprint === transfer.fingerprint) return [];
  if (state.kind !== 'None') throw idempotencyConflict(transfer.transactionId);
  const createdAt = command.metadata.now.toISOString();
  const internal = { sourceType: 'ACCOUNT' as const, accountId: transfer.internalAccountId, currency: transfer.currency };
  const external = { accountId: transfer.externalAccountId, currency: transfer.currency };
  const amount = { value: transfer.amount, currency: transfer.currency };
  const transaction: TransactionRecord = {
    id: transfer.transactionId,
    platformId: transfer.platformId,
    type: transfer.direction === 'OUT' ? 'OUTGOING' : 'INCOMING',
    status: 'PENDING',
    customerId,
    platformCustomerId,
    source: transfer.direction === 'OUT' ? internal : { sourceType: 'ACCOUNT', ...external },
    destination: transfer.direction === 'OUT' ? { destinationType: 'ACCOUNT', ...external } : { destinationType: 'ACCOUNT', accountId: internal.accountId, currency: internal.currency },
    sentAmount: amount,
    receivedAmount: amount,
    exchangeRate: '1',
    fees: '0',
    reconciliationInstructions: { reference: referenceOf(transfer.transactionId) },
    ...(counterpartyInformation !== undefined && Object.keys(counterpartyInformation).length > 0 ? { counterpartyInformation } : {}),
    createdAt,
    updatedAt: createdAt,
  };
  const created: TransferCreated = { type: 'TransferCreated', data: { transfer: { ...transfer, createdAt }, transaction } };
  return [created];
};

/** The reference the rail carries with the money (what a bank statement shows): derived from the id, unique per transfer. */
export const referenceOf = (transactionId: string): string => `CRD-${transactionId.slice(-12).toUpperCase()}`;
