import { type Command, DomainError } from '@corridor/contracts';
import { type ExternalAccount, type ExternalAccountEvent, type ExternalAccountStatus, visibleAccount } from './external-account';

export type ChangeExternalAccountStatus = Command<
  'ChangeExternalAccountStatus',
  { externalAccountId: string; platformId: string; to: ExternalAccountStatus; reason: string },
  { now: Date }
>;

/**
 * The spec names the statuses but not their transitions; these are ours. PENDING is only where an
 * account starts, so nothing returns to it. Review can end either way, and an INACTIVE account can
 * be brought back, because deleting (not deactivating) is how an account goes for good.
 */
export const allowedTransitions: Readonly<Record<ExternalAccountStatus, readonly ExternalAccountStatus[]>> = {
  PENDING: ['ACTIVE', 'UNDER_REVIEW', 'INACTIVE'],
  ACTIVE: ['UNDER_REVIEW', 'INACTIVE'],
  UNDER_REVIEW: ['ACTIVE', 'INACTIVE'],
  INACTIVE: ['ACTIVE', 'UNDER_REVIEW'],
};

export const changeExternalAccountStatus = (command: ChangeExternalAccountStatus, state: ExternalAccount): ExternalAccountEvent[] => {
  const { externalAccountId, platformId, to, reason } = command.data;
  const account = visibleAccount(state, externalAccountId, platformId);
  if (account.status === to) return [];
  if (!allowedTransitions[account.status].includes(to)) {
    throw new DomainError(
      'INVALID_STATE_TRANSITION',
      'conflict',
      `External account ${externalAccountId} cannot go from ${account.status} to ${to}.`,
      {
        externalAccountId,
        from: account.status,
        to,
      },
    );
  }
  return [
    {
      type: 'ExternalAccountStatusChanged',
      data: { externalAccountId, from: account.status, to, reason, changedAt: command.metadata.now.toISOString() },
    },
  ];
};
