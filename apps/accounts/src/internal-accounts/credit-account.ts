import type { Command } from '@corridor/contracts';
import { checkMovement, isRepeat, refuseClosed, requireAccount } from './account-rules';
import { type Cause, fingerprints, type InternalAccount, type InternalAccountEvent } from './internal-account';

export type CreditAccount = Command<
  'CreditAccount',
  { accountId: string; platformId: string; operationId: string; amount: bigint; currency: string; cause: Cause; counterAccountId: string },
  { now: Date }
>;

export const creditAccount = (command: CreditAccount, state: InternalAccount): InternalAccountEvent[] => {
  const { accountId, platformId, operationId, amount, currency, cause, counterAccountId } = command.data;
  const account = requireAccount(state, accountId, platformId);
  if (isRepeat(account, operationId, fingerprints.movement('Credit', amount, currency, cause, counterAccountId))) return [];
  refuseClosed(account);
  checkMovement(account, amount, currency, counterAccountId);
  // Credits reach PENDING and FROZEN accounts too: the money has already arrived (a funding
  // transfer, a refund), and refusing it would leave it nowhere on the ledger.
  return [
    {
      type: 'AccountCredited',
      data: {
        accountId,
        operationId,
        amount: amount.toString(),
        currency,
        cause,
        counterAccountId,
        creditedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
