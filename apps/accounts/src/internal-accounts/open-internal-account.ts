import { type Command, DomainError, invalidInput, isIdOf, isSupportedCurrency } from '@corridor/contracts';
import { isRepeat } from './account-rules';
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
    // Opening is repeated when the policies' events are redelivered and by every CustomerUpdated that
    // lists the currency, however many operations the account has seen since: only that exact
    // repeat is harmless (an opening the window let go of is recalled, never taken for a clash).
    const fingerprint = fingerprints.open(platformId, customerId, accountType, currency, status);
    if (state.platformId === platformId && isRepeat(state, operationId, fingerprint)) return [];
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
