import type { ChangeAccountStatus } from './change-account-status';
import type { CreditAccount } from './credit-account';
import type { DebitAccount } from './debit-account';
import type { HoldFunds } from './hold-funds';
import { type Cause, type InternalAccountEvent, type InternalAccountStatus, systemAccountId } from './internal-account';
import type { OpenInternalAccount } from './open-internal-account';
import type { ReleaseHold } from './release-hold';
import type { SettleHold } from './settle-hold';

export const accountId = 'InternalAccount:0196f1a0-0000-7000-8000-000000000001';
export const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000aa';
export const otherPlatformId = 'Platform:0196f1a0-0000-7000-8000-0000000000bb';
export const customerId = 'Customer:0196f1a0-0000-7000-8000-000000000002';
export const holdId = 'Hold:0196f1a0-0000-7000-8000-000000000003';
export const at = '2026-03-01T10:00:00.000Z';
export const now = new Date(at);
export const fundingRail = systemAccountId('FUNDING_RAIL', 'USD');
export const payoutRail = systemAccountId('PAYOUT_RAIL', 'USD');
export const funding: Cause = { kind: 'FUNDING', id: 'Funding:0196f1a0-0000-7000-8000-000000000004' };
export const payment: Cause = { kind: 'TRANSACTION', id: 'Transaction:0196f1a0-0000-7000-8000-000000000005' };

export const openCommand = (data: Partial<OpenInternalAccount['data']> = {}): OpenInternalAccount => ({
  type: 'OpenInternalAccount',
  data: {
    accountId,
    platformId,
    customerId,
    accountType: 'INTERNAL_FIAT',
    currency: 'USD',
    status: 'ACTIVE',
    operationId: 'op-open',
    ...data,
  },
  metadata: { now },
});

export const creditCommand = (data: Partial<CreditAccount['data']> = {}): CreditAccount => ({
  type: 'CreditAccount',
  data: {
    accountId,
    platformId,
    operationId: 'op-credit',
    amount: 1000n,
    currency: 'USD',
    cause: funding,
    counterAccountId: fundingRail,
    ...data,
  },
  metadata: { now },
});

export const debitCommand = (data: Partial<DebitAccount['data']> = {}): DebitAccount => ({
  type: 'DebitAccount',
  data: {
    accountId,
    platformId,
    operationId: 'op-debit',
    amount: 400n,
    currency: 'USD',
    cause: payment,
    counterAccountId: payoutRail,
    ...data,
  },
  metadata: { now },
});

export const holdCommand = (data: Partial<HoldFunds['data']> = {}): HoldFunds => ({
  type: 'HoldFunds',
  data: {
    accountId,
    platformId,
    operationId: 'op-hold',
    holdId,
    amount: 300n,
    currency: 'USD',
    cause: payment,
    counterAccountId: payoutRail,
    ...data,
  },
  metadata: { now },
});

export const settleCommand = (data: Partial<SettleHold['data']> = {}): SettleHold => ({
  type: 'SettleHold',
  data: { accountId, platformId, operationId: 'op-settle', holdId, ...data },
  metadata: { now },
});

export const releaseCommand = (data: Partial<ReleaseHold['data']> = {}): ReleaseHold => ({
  type: 'ReleaseHold',
  data: { accountId, platformId, operationId: 'op-release', holdId, ...data },
  metadata: { now },
});

export const statusCommand = (
  to: ChangeAccountStatus['data']['to'],
  data: Partial<ChangeAccountStatus['data']> = {},
): ChangeAccountStatus => ({
  type: 'ChangeAccountStatus',
  data: { accountId, platformId, operationId: `op-${to.toLowerCase()}`, to, ...data },
  metadata: { now },
});

export const opened = (status: 'PENDING' | 'ACTIVE' = 'ACTIVE'): InternalAccountEvent => ({
  type: 'InternalAccountOpened',
  data: { accountId, platformId, customerId, accountType: 'INTERNAL_FIAT', currency: 'USD', status, operationId: 'op-open', openedAt: at },
});

export const credited = (amount = '1000', operationId = 'op-credit'): InternalAccountEvent => ({
  type: 'AccountCredited',
  data: { accountId, operationId, amount, currency: 'USD', cause: funding, counterAccountId: fundingRail, creditedAt: at },
});

export const debited = (amount = '400', operationId = 'op-debit'): InternalAccountEvent => ({
  type: 'AccountDebited',
  data: { accountId, operationId, amount, currency: 'USD', cause: payment, counterAccountId: payoutRail, debitedAt: at },
});

export const held = (amount = '300', operationId = 'op-hold', id = holdId): InternalAccountEvent => ({
  type: 'FundsHeld',
  data: { accountId, operationId, holdId: id, amount, currency: 'USD', cause: payment, counterAccountId: payoutRail, heldAt: at },
});

export const settled = (amount = '300', releasedAmount = '0', operationId = 'op-settle'): InternalAccountEvent => ({
  type: 'HoldSettled',
  data: {
    accountId,
    operationId,
    holdId,
    amount,
    releasedAmount,
    currency: 'USD',
    cause: payment,
    counterAccountId: payoutRail,
    settledAt: at,
  },
});

/** A partial settle that kept the rest of the hold reserved (a card's partial clearing). */
export const settledKeeping = (amount: string, remainingAmount: string, operationId = 'op-settle'): InternalAccountEvent => ({
  type: 'HoldSettled',
  data: {
    accountId,
    operationId,
    holdId,
    amount,
    releasedAmount: '0',
    remainingAmount,
    currency: 'USD',
    cause: payment,
    counterAccountId: payoutRail,
    settledAt: at,
  },
});

export const released = (amount = '300', operationId = 'op-release'): InternalAccountEvent => ({
  type: 'HoldReleased',
  data: { accountId, operationId, holdId, amount, currency: 'USD', cause: payment, releasedAt: at },
});

export const statusChanged = (
  from: InternalAccountStatus,
  to: InternalAccountStatus,
  operationId = `op-${to.toLowerCase()}`,
): InternalAccountEvent => ({
  type: 'AccountStatusChanged',
  data: { accountId, operationId, from, to, changedAt: at },
});
