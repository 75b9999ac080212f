import { type Command, DomainError, invalidInput, isIdOf, isSupportedCurrency } from '@corridor/contracts';
import { fingerprints, type InternalAccount, type InternalAccountEvent, type InternalAccountType } from './internal-account';

export type OpenInternalAccount = Command<
  'OpenInternalAccount',
  {
    accountId: string;
    platformId: string;
    /** Null for the platform's own accounts. */
    customerId: string | null;
    accountType: InternalAccountType;
    currency: string;
    /** Accounts that wait for provisioning (an embedded wallet's keys) start PENDING. */
    status: 'PENDING' | 'ACTIVE';
    operationId: string;
  },
  { now: Date }
>;

export const openInternalAccount = (command: OpenInternalAccount, state: InternalAccount): InternalAccountEvent[] => {
  const { accountId, platformId, customerId, accountType, currency, status, operationId } = command.data;
  if (state.kind === 'Open') {
    // Opening is retried when the customer-created policy is redelivered; only that exact retry is harmless.
    const recorded = state.operations.get(operationId);
    if (state.platformId === platformId && recorded === fingerprints.open(platformId, customerId, accountType, currency, status)) return [];
    throw new DomainError('CONFLICT', 'conflict', `Internal account ${accountId} already exists.`, { accountId });
  }
  if (!isIdOf('InternalAccount', accountId))
    throw invalidInput(`accountId must be an InternalAccount id, got ${accountId}.`, { field: 'accountId' });
  if (!isSupportedCurrency(currency)) {
    throw new DomainError('INVALID_CURRENCY', 'validation', `${currency} is not a supported currency.`, { field: 'currency' });
  }
  return [
    {
      type: 'InternalAccountOpened',
      data: { accountId, platformId, customerId, accountType, currency, status, operationId, openedAt: command.metadata.now.toISOString() },
    },
  ];
};
