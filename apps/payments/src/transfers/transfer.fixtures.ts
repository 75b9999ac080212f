import { type Currency, currencies } from '@corridor/contracts';
import type { RailOutcome, TransferDirection, TransferTerms } from '../transactions/transfer-events';
import type { CreateTransfer, TransferExternalAccount, TransferFacts, TransferInternalAccount } from './create-transfer';

export const platformId = 'Platform:01950000-0000-7000-8000-000000000001';
export const customerId = 'Customer:01950000-0000-7000-8000-000000000002';
export const internalAccountId = 'InternalAccount:01950000-0000-7000-8000-000000000003';
export const externalAccountId = 'ExternalAccount:01950000-0000-7000-8000-000000000004';
export const transactionId = 'Transaction:01950000-0000-7000-8000-0000000000aa';
export const createdAt = '2026-03-01T10:00:00.000Z';

/** The sandbox rail's account-number suffix for each outcome (sandbox-rail.ts). */
const suffixOf: Record<RailOutcome, string> = {
  SUCCEEDS: '001',
  INSUFFICIENT_FUNDS: '002',
  ACCOUNT_CLOSED: '003',
  REJECTED_BY_BANK: '004',
  PENDING_THEN_FAILS: '005',
};

/** The customer's ACTIVE USD internal account with 20,000 available. */
export const internalAccount = (overrides: Partial<TransferInternalAccount> = {}): TransferInternalAccount => ({
  id: internalAccountId,
  customerId,
  status: 'ACTIVE',
  balance: { amount: 20_000, currency: currencies['USD'] as Currency },
  fundingPaymentInstructions: [],
  ...overrides,
});

/** The same customer's ACTIVE USD external account on ACH (so it can be pulled from), whose number picks the rail's outcome. */
export const externalAccount = (
  overrides: Partial<TransferExternalAccount> = {},
  outcome: RailOutcome = 'SUCCEEDS',
): TransferExternalAccount => ({
  id: externalAccountId,
  customerId,
  status: 'ACTIVE',
  currency: 'USD',
  accountInfo: { accountNumber: `123456${suffixOf[outcome]}`, paymentRails: ['ACH'] },
  ...overrides,
});

export type TransferFactsOverrides = Partial<Omit<TransferFacts, 'internal' | 'external'>> & {
  internal?: Partial<TransferInternalAccount>;
  external?: Partial<TransferExternalAccount>;
  outcome?: RailOutcome;
};

/** A transfer-out of 12,550 from the internal account to the external one, unless overridden. */
export const transferFacts = (overrides: TransferFactsOverrides = {}): TransferFacts => {
  const { internal, external, outcome, ...rest } = overrides;
  return {
    transactionId,
    platformId,
    direction: 'OUT',
    requested: 12_550n,
    ...rest,
    internal: internalAccount({ ...(internal ?? {}) }),
    external: externalAccount({ ...(external ?? {}) }, outcome),
  };
};

/** The terms createTransfer records for transferFacts() with the same overrides of direction and amount. */
export const transferTerms = (direction: TransferDirection = 'OUT'): Omit<TransferTerms, 'createdAt'> => ({
  transactionId,
  platformId,
  direction,
  internalAccountId,
  externalAccountId,
  currency: 'USD',
  amount: '12550',
  outcome: 'SUCCEEDS',
  fingerprint: JSON.stringify(
    direction === 'OUT' ? ['OUT', internalAccountId, externalAccountId, '12550'] : ['IN', externalAccountId, internalAccountId, '12550'],
  ),
  ...(direction === 'OUT' ? { holdId: transactionId } : {}),
});

export const createTransferCommand = (overrides: TransferFactsOverrides = {}, now = createdAt): CreateTransfer => ({
  type: 'CreateTransfer',
  data: { facts: transferFacts(overrides), customerId, platformCustomerId: 'cust-42' },
  metadata: { now: new Date(now) },
});
