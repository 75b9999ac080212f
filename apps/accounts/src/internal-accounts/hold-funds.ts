import { type Command, DomainError } from '@corridor/contracts';
import {
  checkFunds,
  checkMovement,
  closedHoldAmount,
  isRepeat,
  refuseClosed,
  refuseUnlessSpendable,
  requireAccount,
} from './account-rules';
import { type Cause, fingerprints, type InternalAccount, type InternalAccountEvent } from './internal-account';
import { requireWalletConsent, type WalletConsent } from './wallet-consent';

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
    /** The card a card authorization holds for: an Embedded Wallet holds only for a card it consented to fund. */
    cardId?: string;
    /** An Embedded Wallet's consent for this hold as looked up (null: none); undefined until looked up (wallet-consent.ts). */
    consent?: WalletConsent | null;
  },
  { now: Date }
>;

export const holdFunds = (command: HoldFunds, state: InternalAccount): InternalAccountEvent[] => {
  const { accountId, platformId, operationId, holdId, amount, currency, cause, counterAccountId, cardId, consent } = command.data;
  const account = requireAccount(state, accountId, platformId);
  if (isRepeat(account, operationId, fingerprints.movement('Hold', amount, currency, cause, counterAccountId, holdId))) return [];
  // Before any other rule, so an unproven hold of a wallet learns nothing of its status or funds.
  requireWalletConsent(
    account,
    { verb: 'Hold', holdId, amount, currency, cause, ...(cardId !== undefined ? { cardId } : {}) },
    consent,
    command.metadata.now,
  );
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
      data: {
        accountId,
        operationId,
        holdId,
        amount: amount.toString(),
        currency,
        cause,
        counterAccountId,
        heldAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
