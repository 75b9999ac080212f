import { type Command, DomainError } from '@corridor/contracts';
import { checkAmount, closedHoldAmount, isRepeat, refuseClosed, requireAccount } from './account-rules';
import { fingerprints, type Hold, type InternalAccount, type InternalAccountEvent, type OpenAccount } from './internal-account';

export type SettleHold = Command<
  'SettleHold',
  {
    accountId: string;
    platformId: string;
    operationId: string;
    holdId: string;
    /** The final amount when it came out smaller than the hold (an FX or fee adjustment); the rest is released. */
    amount?: bigint;
    /** Keep the rest reserved under the same hold instead of releasing it (a card's partial clearing); needs amount. */
    keepRemainder?: boolean;
  },
  { now: Date }
>;

/** The hold's original amount also after it closed, so a retry that left out amount still matches. */
const originalAmountOf = (account: OpenAccount, holdId: string): bigint | undefined =>
  account.holds.get(holdId)?.amount ?? closedHoldAmount(account, holdId);

export const requireOpenHold = (account: OpenAccount, holdId: string): Hold => {
  const hold = account.holds.get(holdId);
  if (hold) return hold;
  if (closedHoldAmount(account, holdId) !== undefined) {
    throw new DomainError('HOLD_ALREADY_CLOSED', 'conflict', `Hold ${holdId} was already settled or released.`, { holdId });
  }
  throw new DomainError('HOLD_NOT_FOUND', 'not_found', `Hold ${holdId} does not exist on ${account.accountId}.`, { holdId });
};

export const settleHold = (command: SettleHold, state: InternalAccount): InternalAccountEvent[] => {
  const { accountId, platformId, operationId, holdId, amount } = command.data;
  const keepRemainder = command.data.keepRemainder === true;
  if (keepRemainder && amount === undefined) {
    throw new DomainError('INVALID_AMOUNT', 'validation', 'A settle that keeps the rest of the hold must name the amount it settles.', {
      field: 'amount',
    });
  }
  const account = requireAccount(state, accountId, platformId);
  const finalAmount = amount ?? originalAmountOf(account, holdId);
  if (isRepeat(account, operationId, fingerprints.settle(holdId, finalAmount ?? '-', keepRemainder))) return [];
  refuseClosed(account);
  const hold = requireOpenHold(account, holdId);
  const settled = amount ?? hold.amount;
  checkAmount(settled);
  if (settled > hold.amount) {
    throw new DomainError('INVALID_AMOUNT', 'validation', `Hold ${holdId} reserved ${hold.amount}; it cannot settle for ${settled}.`, {
      field: 'amount',
      held: hold.amount.toString(),
      requested: settled.toString(),
    });
  }
  // A FROZEN account still settles: the money was committed to the payment when it was held, and
  // the payment may already be at the rail, so refusing would strand it rather than protect anyone.
  return [
    {
      type: 'HoldSettled',
      data: {
        accountId,
        operationId,
        holdId,
        amount: settled.toString(),
        ...(keepRemainder
          ? { releasedAmount: '0', remainingAmount: (hold.amount - settled).toString() }
          : { releasedAmount: (hold.amount - settled).toString() }),
        currency: account.currency,
        cause: hold.cause,
        counterAccountId: hold.counterAccountId,
        settledAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
