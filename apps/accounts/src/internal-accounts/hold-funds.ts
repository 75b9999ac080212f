import { type Command, DomainError } from '@corridor/contracts';
import { checkFunds, checkMovement, closedHoldAmount, isRepeat, refuseClosed, refuseUnlessSpendable, requireAccount } from './account-rules';
import { type Cause, fingerprints, type InternalAccount, type InternalAccountEvent } from './internal-account';

export type HoldFunds = Command<
  'HoldFunds',
  {
    accountId: string;
    platformId: string;
    operationId: string;
    holdId: string;
    amount: bigint;
    currency: string;
    cause: Cause;
    /** Where the money goes if the hold settles. */
    counterAccountId: string;
  },
  { now: Date }
>;

export const holdFunds = (command: HoldFunds, state: InternalAccount): InternalAccountEvent[] => {
  const { accountId, platformId, operationId, holdId, amount, currency, cause, counterAccountId } = command.data;
  const account = requireAccount(state, accountId, platformId);
  if (isRepeat(account, operationId, fingerprints.movement('Hold', amount, currency, cause, counterAccountId, holdId))) return [];
  refuseClosed(account);
  checkMovement(account, amount, currency, counterAccountId);
  // A settle or release names its hold by id, so one id must never mean two reservations.
  if (account.holds.has(holdId) || closedHoldAmount(account, holdId) !== undefined) {
    throw new DomainError('HOLD_EXISTS', 'conflict', `Hold ${holdId} already exists on ${accountId}.`, { holdId });
  }
  refuseUnlessSpendable(account);
  checkFunds(account, amount);
  return [
    {
      type: 'FundsHeld',
      data: { accountId, operationId, holdId, amount: amount.toString(), currency, cause, counterAccountId, heldAt: command.metadata.now.toISOString() },
    },
  ];
};
