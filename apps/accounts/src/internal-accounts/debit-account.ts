import type { Command } from '@corridor/contracts';
import { checkFunds, checkMovement, isRepeat, refuseClosed, refuseUnlessSpendable, requireAccount } from './account-rules';
import { type Cause, fingerprints, type InternalAccount, type InternalAccountEvent } from './internal-account';
import { requireWalletConsent, type WalletConsent } from './wallet-consent';

export type DebitAccount = Command<
  'DebitAccount',
  {
    accountId: string;
    platformId: string;
    operationId: string;
    amount: bigint;
    currency: string;
    cause: Cause;
    counterAccountId: string;
    /** The card a card pull is for: an Embedded Wallet pays only for a card it consented to fund. */
    cardId?: string;
    /** An Embedded Wallet's consent as looked up (null: none); undefined until looked up (wallet-consent.ts). */
    consent?: WalletConsent | null;
  },
  { now: Date }
>;

export const debitAccount = (command: DebitAccount, state: InternalAccount): InternalAccountEvent[] => {
  const { accountId, platformId, operationId, amount, currency, cause, counterAccountId, cardId, consent } = command.data;
  const account = requireAccount(state, accountId, platformId);
  if (isRepeat(account, operationId, fingerprints.movement('Debit', amount, currency, cause, counterAccountId))) return [];
  requireWalletConsent(
    account,
    { verb: 'Debit', amount, currency, cause, ...(cardId !== undefined ? { cardId } : {}) },
    consent,
    command.metadata.now,
  );
  refuseClosed(account);
  checkMovement(account, amount, currency, counterAccountId);
  refuseUnlessSpendable(account);
  // Held funds are promised to pending payments, so a debit can spend only what is available.
  checkFunds(account, amount);
  return [
    {
      type: 'AccountDebited',
      data: {
        accountId,
        operationId,
        amount: amount.toString(),
        currency,
        cause,
        counterAccountId,
        debitedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
