import { type Command, DomainError } from '@corridor/contracts';
import { isRepeat, refuseClosed, requireAccount } from './account-rules';
import { fingerprints, type InternalAccount, type InternalAccountEvent } from './internal-account';

export type ChangeAccountStatus = Command<
  'ChangeAccountStatus',
  {
    accountId: string;
    platformId: string;
    operationId: string;
    /** ACTIVE activates a PENDING account and unfreezes a FROZEN one; CLOSED is terminal. */
    to: 'ACTIVE' | 'FROZEN' | 'CLOSED';
  },
  { now: Date }
>;

export const changeAccountStatus = (command: ChangeAccountStatus, state: InternalAccount): InternalAccountEvent[] => {
  const { accountId, platformId, operationId, to } = command.data;
  const account = requireAccount(state, accountId, platformId);
  if (isRepeat(account, operationId, fingerprints.status(to))) return [];
  refuseClosed(account);
  if (account.status === to) return [];
  // Closing with money inside would make that money unreachable while still counted on the ledger.
  if (to === 'CLOSED' && (account.available !== 0n || account.held !== 0n)) {
    throw new DomainError(
      'ACCOUNT_NOT_EMPTY',
      'conflict',
      `Internal account ${accountId} still holds ${account.available} available and ${account.held} held.`,
      {
        accountId,
        available: account.available.toString(),
        held: account.held.toString(),
      },
    );
  }
  return [
    {
      type: 'AccountStatusChanged',
      data: { accountId, operationId, from: account.status, to, changedAt: command.metadata.now.toISOString() },
    },
  ];
};
