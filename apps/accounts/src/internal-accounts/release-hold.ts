import type { Command } from '@corridor/contracts';
import { isRepeat, refuseClosed, requireAccount } from './account-rules';
import { fingerprints, type InternalAccount, type InternalAccountEvent } from './internal-account';
import { requireOpenHold } from './settle-hold';

export type ReleaseHold = Command<
  'ReleaseHold',
  { accountId: string; platformId: string; operationId: string; holdId: string },
  { now: Date }
>;

export const releaseHold = (command: ReleaseHold, state: InternalAccount): InternalAccountEvent[] => {
  const { accountId, platformId, operationId, holdId } = command.data;
  const account = requireAccount(state, accountId, platformId);
  if (isRepeat(account, operationId, fingerprints.release(holdId))) return [];
  refuseClosed(account);
  const hold = requireOpenHold(account, holdId);
  // A FROZEN account still releases: the money stays in the account, only back under its freeze.
  return [
    {
      type: 'HoldReleased',
      data: {
        accountId,
        operationId,
        holdId,
        amount: hold.amount.toString(),
        currency: account.currency,
        cause: hold.cause,
        releasedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
