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

/**
 * True when this open decides nothing on `state` and no event appended after `state` can change
 * that, so the writer may answer it without looking at the stream's tail: the account was opened by
 * this very operation. evolve never undoes an opening: every later event keeps the state Open under
 * the same platform and only adds operations, so the opening's fingerprint stays (once the window
 * lets it go, the decider recalls it from the event, which stays too). Only the window counts here:
 * an opening known from a recall, or not known at all, is not final.
 */
export const openIsFinal = (data: OpenInternalAccount['data'], state: InternalAccount): boolean => {
  const { platformId, customerId, accountType, currency, status, operationId } = data;
  return (
    state.kind === 'Open' &&
    state.platformId === platformId &&
    state.operations.get(operationId) === fingerprints.open(platformId, customerId, accountType, currency, status)
  );
};
