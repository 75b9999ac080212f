import {
  type Command,
  DomainError,
  idempotencyConflict,
  invalidInput,
  requireSameRequest,
  TRANSFER_AMOUNT_MAX,
  type TransactionRecord,
} from '@corridor/contracts';
import type { Transaction, TransactionEvent } from '../transactions/transaction';
import type { TransferCreated, TransferDirection, TransferTerms } from '../transactions/transfer-events';

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
    /** The agent that asked for the transfer (the request's actor), shown as the transaction's agentId. */
    agentId?: string;
  },
  { now: Date }
>;

export const createTransfer = (command: CreateTransfer, state: Transaction): TransactionEvent[] => {
  const { transfer, customerId, platformCustomerId, counterpartyInformation, agentId } = command.data;
  if (state.kind === 'Transfer') {
    requireSameRequest(state.transfer.fingerprint, transfer.fingerprint, transfer.transactionId);
    return [];
  }
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
    destination:
      transfer.direction === 'OUT'
        ? { destinationType: 'ACCOUNT', ...external }
        : { destinationType: 'ACCOUNT', accountId: internal.accountId, currency: internal.currency },
    sentAmount: amount,
    receivedAmount: amount,
    exchangeRate: '1',
    fees: '0',
    reconciliationInstructions: { reference: referenceOf(transfer.transactionId) },
    ...(counterpartyInformation !== undefined && Object.keys(counterpartyInformation).length > 0 ? { counterpartyInformation } : {}),
    ...(agentId !== undefined ? { agentId } : {}),
    createdAt,
    updatedAt: createdAt,
  };
  const created: TransferCreated = { type: 'TransferCreated', data: { transfer: { ...transfer, createdAt }, transaction } };
  return [created];
};

/** The reference the rail carries with the money (what a bank statement shows): derived from the id, unique per transfer. */
export const referenceOf = (transactionId: string): string => `CRD-${transactionId.slice(-12).toUpperCase()}`;

/** What an omitted amount asks for, as the request's idempotency fingerprint records it. */
export const WHOLE_AVAILABLE_BALANCE = 'WHOLE_AVAILABLE_BALANCE';

export type TransferAmountQuestion = {
  direction: TransferDirection;
  /** The request's amount in minor units, or undefined when the request leaves it out (the reference makes it optional). */
  requested: bigint | undefined;
  internalAccountId: string;
  currency: string;
  /** The internal account's available balance (its `balance`: what is not held) as the transfer is asked for. */
  available: bigint;
};

/**
 * The amount a transfer moves. An explicit amount is taken as asked (a shortfall is the ledger's
 * 400 when it holds). An omitted amount on a transfer-out moves the whole available balance of the
 * source internal account, as read when the request arrives (money arriving later is not included;
 * money spent in between makes the hold fail with the usual shortfall 400); an empty account is a
 * 400, never a zero-amount transfer. A transfer-in has no such reading: Corridor cannot see the
 * balance of the external account it would pull from, so its amount must be given. Pure.
 */
export const amountToTransfer = (question: TransferAmountQuestion): bigint => {
  const { direction, requested, internalAccountId, currency, available } = question;
  if (requested !== undefined) return requested;
  if (direction === 'IN') {
    throw invalidInput(
      'amount is required on a transfer-in: Corridor cannot see the balance of the external account it pulls from, so there is no whole balance to pull. Give amount in minor units (e.g. 12550 for 125.50).',
      { field: 'amount' },
    );
  }
  if (available <= 0n) {
    throw new DomainError(
      'INVALID_AMOUNT',
      'validation',
      `amount was left out, which moves the whole available balance of ${internalAccountId}, but it has none available (0 ${currency}). Fund the account first (its fundingPaymentInstructions, or POST /sandbox/internal-accounts/{id}/fund in the sandbox) or give an amount. Nothing was transferred.`,
      { field: 'amount', reason: 'NO_AVAILABLE_BALANCE', accountId: internalAccountId, available: available.toString() },
    );
  }
  if (available > BigInt(TRANSFER_AMOUNT_MAX)) {
    throw new DomainError(
      'INVALID_AMOUNT',
      'validation',
      `amount was left out, which moves the whole available balance of ${internalAccountId}, but its ${available} ${currency} is more than one transfer moves (${TRANSFER_AMOUNT_MAX}). Give an amount of at most ${TRANSFER_AMOUNT_MAX}.`,
      { field: 'amount', reason: 'ABOVE_TRANSFER_MAX', accountId: internalAccountId, available: available.toString() },
    );
  }
  return available;
};
