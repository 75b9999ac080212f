import {
  type Command,
  DomainError,
  type ExternalAccountWire,
  idempotencyConflict,
  type InternalAccountWire,
  invalidInput,
  requireSameRequest,
  TRANSFER_AMOUNT_MAX,
  type TransactionRecord,
} from '@corridor/contracts';
import type { Transaction, TransactionEvent } from '../transactions/transaction';
import type { TransferCreated, TransferDirection, TransferTerms } from '../transactions/transfer-events';
import { canPull, sandboxRailOutcome } from './sandbox-rail';

// Opening a transfer's Transaction stream, judged over the facts the controller gathered: both
// accounts as their services answer now, the amount asked for, and (a retry of a transfer-out
// without an amount) what the transfer under this id already moved. The rules come first, in the
// order a caller has always seen them: the accounts' status, one currency and one owner, a
// transfer-in's pullable source, then the amount. Then the stream: a new id opens it PENDING; the
// same id again (a retry under the same Idempotency-Key, or its racing twin) is a no-op when it
// asks for the same transfer and a 409 when it asks for a different one. The runner
// (open-transfer.ts) decides with planTransfer before it holds the money, so a refused transfer
// never holds anything.

/** The internal account as the accounts service answers it: what the rules read. */
export type TransferInternalAccount = Pick<InternalAccountWire, 'id' | 'customerId' | 'status' | 'balance' | 'fundingPaymentInstructions'>;
/** The external account as the accounts service answers it: what the rules and the rail read. */
export type TransferExternalAccount = Pick<ExternalAccountWire, 'id' | 'customerId' | 'status' | 'currency' | 'accountInfo'>;

export type TransferFacts = {
  transactionId: string;
  platformId: string;
  /** OUT: internal sends, external receives (POST /transfer-out). IN: external is pulled into internal (POST /transfer-in). */
  direction: TransferDirection;
  internal: TransferInternalAccount;
  external: TransferExternalAccount;
  /** The request's amount in minor units, or undefined when the request leaves it out. */
  requested: bigint | undefined;
  /** A transfer-out already opened under this id: the amount it moved (a retry answers with it, not with the balance left now). */
  earlierAmount?: bigint;
};

export type CreateTransfer = Command<
  'CreateTransfer',
  {
    facts: TransferFacts;
    /** Who the transaction belongs to (the internal account's customer, or the platform itself). */
    customerId: string;
    platformCustomerId: string;
    /** The agent that asked for the transfer (the request's actor), shown as the transaction's agentId. */
    agentId?: string;
  },
  { now: Date }
>;

export const createTransfer = (command: CreateTransfer, state: Transaction): TransactionEvent[] => {
  const { facts, customerId, platformCustomerId, agentId } = command.data;
  const transfer = planTransfer(facts);
  if (state.kind === 'Transfer') {
    requireSameRequest(state.transfer.fingerprint, transfer.fingerprint, transfer.transactionId);
    return [];
  }
  if (state.kind !== 'None') throw idempotencyConflict(transfer.transactionId);
  const createdAt = command.metadata.now.toISOString();
  const counterpartyInformation = counterpartyOf(facts.external);
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
    ...(Object.keys(counterpartyInformation).length > 0 ? { counterpartyInformation } : {}),
    ...(agentId !== undefined ? { agentId } : {}),
    createdAt,
    updatedAt: createdAt,
  };
  const created: TransferCreated = { type: 'TransferCreated', data: { transfer: { ...transfer, createdAt }, transaction } };
  return [created];
};

/**
 * The terms of the transfer the facts allow, or the refusal: both accounts able to take part, one
 * currency and one owner, a transfer-in only from an account that can be pulled from, and the
 * amount (amountToTransfer). Pure; the runner calls it before the hold, the decider again on append.
 */
export const planTransfer = (facts: TransferFacts): Omit<TransferTerms, 'createdAt'> => {
  const { transactionId, platformId, direction, internal, external, requested } = facts;
  const fields = fieldsOf(direction);
  requireParticipating(facts, fields);
  requireSamePair(internal, external, fields.external);
  if (direction === 'IN' && !canPull(external.accountInfo)) throw notPullable(internal, external);
  const amount =
    direction === 'OUT' && facts.earlierAmount !== undefined
      ? facts.earlierAmount
      : amountToTransfer({
          direction,
          requested,
          internalAccountId: internal.id,
          currency: external.currency,
          available: BigInt(internal.balance.amount),
        });
  const [sourceId, destinationId] = direction === 'OUT' ? [internal.id, external.id] : [external.id, internal.id];
  // A transfer-out's fingerprint records what was asked (an omitted amount asks for the whole balance); a transfer-in's, what it moves.
  const asked = direction === 'OUT' ? (requested?.toString() ?? WHOLE_AVAILABLE_BALANCE) : amount.toString();
  return {
    transactionId,
    platformId,
    direction,
    internalAccountId: internal.id,
    externalAccountId: external.id,
    currency: external.currency,
    amount: amount.toString(),
    outcome: sandboxRailOutcome(external.accountInfo),
    fingerprint: JSON.stringify([direction, sourceId, destinationId, asked]),
    ...(direction === 'OUT' ? { holdId: transactionId } : {}),
  };
};

type PartyFields = { internal: string; external: string };
const fieldsOf = (direction: TransferDirection): PartyFields =>
  direction === 'OUT'
    ? { internal: 'source.accountId', external: 'destination.accountId' }
    : { internal: 'destination.accountId', external: 'source.accountId' };

/**
 * A transfer-out needs an ACTIVE sender and a receiver that is not INACTIVE; a transfer-in, a receiver
 * that is not CLOSED and a source that is not INACTIVE.
 */
const requireParticipating = ({ direction, internal, external }: TransferFacts, fields: PartyFields): void => {
  if (direction === 'OUT') {
    if (internal.status !== 'ACTIVE')
      throw invalidInput(`${fields.internal} ${internal.id} is ${internal.status}; only an ACTIVE account can send.`, {
        field: fields.internal,
      });
    if (external.status === 'INACTIVE')
      throw invalidInput(`${fields.external} ${external.id} is INACTIVE and cannot receive.`, { field: fields.external });
    return;
  }
  if (internal.status === 'CLOSED')
    throw invalidInput(`${fields.internal} ${internal.id} is CLOSED and cannot receive.`, { field: fields.internal });
  if (external.status === 'INACTIVE')
    throw invalidInput(`${fields.external} ${external.id} is INACTIVE and cannot be pulled from.`, { field: fields.external });
};

/** Same currency, same owner: a customer's internal account with that customer's external account, a platform's with the platform's. */
const requireSamePair = (internal: TransferInternalAccount, external: TransferExternalAccount, externalField: string): void => {
  const internalCurrency = internal.balance.currency.code;
  if (internalCurrency !== external.currency) {
    throw new DomainError(
      'INVALID_CURRENCY',
      'validation',
      `${externalField} ${external.id} holds ${external.currency} and ${internal.id} holds ${internalCurrency}; ` +
        'a transfer moves one currency. Use POST /quotes to convert.',
      { field: externalField },
    );
  }
  if (internal.customerId !== external.customerId) {
    throw invalidInput(
      `${externalField} ${external.id} does not belong to the owner of ${internal.id}; ` +
        "a transfer moves money between one owner's own accounts.",
      { field: externalField },
    );
  }
};

const notPullable = (internal: TransferInternalAccount, external: TransferExternalAccount): DomainError =>
  new DomainError(
    'INVALID_INPUT',
    'validation',
    `source.accountId ${external.id} cannot be pulled from (only accounts on the ACH rail can). ` +
      `To fund ${internal.id}, send money to its fundingPaymentInstructions ` +
      '(GET /customers/internal-accounts or GET /platform/internal-accounts).',
    {
      field: 'source.accountId',
      reason: 'NOT_PULLABLE',
      internalAccountId: internal.id,
      fundingPaymentInstructions: internal.fundingPaymentInstructions,
    },
  );

/** The counterparty as the external account's beneficiary names it (the reference's counterpartyInformation keys). */
export const counterpartyOf = (account: Pick<ExternalAccountWire, 'accountInfo'>): Record<string, string> => {
  const beneficiary = account.accountInfo['beneficiary'] as Record<string, unknown> | undefined;
  const name = beneficiary?.['fullName'] ?? beneficiary?.['legalName'];
  return typeof name === 'string' && name.length > 0 ? { FULL_NAME: name } : {};
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
      'amount is required on a transfer-in: Corridor cannot see the balance of the external account it pulls from, ' +
        'so there is no whole balance to pull. Give amount in minor units (e.g. 12550 for 125.50).',
      { field: 'amount' },
    );
  }
  if (available <= 0n) {
    throw new DomainError(
      'INVALID_AMOUNT',
      'validation',
      `amount was left out, which moves the whole available balance of ${internalAccountId}, but it has none available (0 ${currency}). ` +
        'Fund the account first (its fundingPaymentInstructions, or POST /sandbox/internal-accounts/{id}/fund in the sandbox) ' +
        'or give an amount. Nothing was transferred.',
      { field: 'amount', reason: 'NO_AVAILABLE_BALANCE', accountId: internalAccountId, available: available.toString() },
    );
  }
  if (available > BigInt(TRANSFER_AMOUNT_MAX)) {
    throw new DomainError(
      'INVALID_AMOUNT',
      'validation',
      `amount was left out, which moves the whole available balance of ${internalAccountId}, ` +
        `but its ${available} ${currency} is more than one transfer moves (${TRANSFER_AMOUNT_MAX}). ` +
        `Give an amount of at most ${TRANSFER_AMOUNT_MAX}.`,
      { field: 'amount', reason: 'ABOVE_TRANSFER_MAX', accountId: internalAccountId, available: available.toString() },
    );
  }
  return available;
};
