import type { TransactionRecord } from '@corridor/contracts';

// Events of a same-currency transfer (POST /transfer-out, POST /transfer-in). A transfer opens a
// Transaction stream of its own, without a quote (docs/decisions/0009-same-currency-transfers.md).
// As with quotes, every event carries the transaction as it is right after the event.

export type TransferDirection = 'OUT' | 'IN';

/**
 * What the sandbox rail will do with the transfer, fixed when it is created from the last three
 * digits of the external account's identifier (002 insufficient funds, 003 account closed or
 * invalid, 004 rejected by the bank, 005 pending about 30 s then failing; anything else succeeds).
 */
export type RailOutcome = 'SUCCEEDS' | 'INSUFFICIENT_FUNDS' | 'ACCOUNT_CLOSED' | 'REJECTED_BY_BANK' | 'PENDING_THEN_FAILS';

/** The immutable terms of a transfer. */
export type TransferTerms = {
  transactionId: string;
  platformId: string;
  direction: TransferDirection;
  internalAccountId: string;
  externalAccountId: string;
  currency: string;
  /** Minor units, a decimal string. */
  amount: string;
  outcome: RailOutcome;
  /** The request as the idempotency check compares it: a retry under the same key must match. */
  fingerprint: string;
  /** Transfer-out only: the ledger hold that reserves the money until the rail answers (its id is the transaction id). */
  holdId?: string;
  createdAt: string;
};

export type TransferCreated = { type: 'TransferCreated'; data: { transfer: TransferTerms; transaction: TransactionRecord } };
/** Handed to the rail: the transaction is PROCESSING; dueAt is when it is looked at again. */
export type TransferSubmitted = {
  type: 'TransferSubmitted';
  data: { transactionId: string; submittedAt: string; dueAt: string; transaction: TransactionRecord };
};
/** The rail delivered: transfer-out settled its hold, transfer-in credited the internal account. */
export type TransferCompleted = { type: 'TransferCompleted'; data: { transactionId: string; transaction: TransactionRecord } };
/** The rail refused or gave up: transfer-out released its hold; transfer-in credited nothing. */
/**
 * Why a transfer failed: the rail's answer, or HOLD_RELEASED when the money it was to send is no
 * longer held (the hold was given back after a failed create and a retry reopened the transfer).
 */
export type TransferFailure = Exclude<RailOutcome, 'SUCCEEDS'> | 'HOLD_RELEASED';
export type TransferFailed = {
  type: 'TransferFailed';
  data: { transactionId: string; railFailure: TransferFailure; transaction: TransactionRecord };
};
/** POST /transactions/{id}/confirm: the platform delivered the receipt (any transaction, quote or transfer). */
export type ReceiptDeliveryConfirmed = {
  type: 'ReceiptDeliveryConfirmed';
  data: { transactionId: string; receiptDeliveryConfirmedAt: string; transaction: TransactionRecord };
};

export type TransferEvent = TransferCreated | TransferSubmitted | TransferCompleted | TransferFailed;

export const transferEventTypes = ['TransferCreated', 'TransferSubmitted', 'TransferCompleted', 'TransferFailed'] as const;
export const receiptEventTypes = ['ReceiptDeliveryConfirmed'] as const;
