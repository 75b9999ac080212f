import { invalidInput, type WalletFundedChangeData } from '@corridor/contracts';
import { parseLedgerAmount } from '../internal-accounts/ledger-input';

// What an Embedded Wallet's owner signs for when wallet money is about to be committed outside a
// quote (decision 0020), decided on leg 1 of the signed retry and kept with the pending request: the
// resource the consent names (a card, or the transfer to make, whose id is fixed here so the payload
// can name it) and what the ledger may do on its strength once leg 2 verifies the stamp.

/** The currency an Embedded Wallet holds (the reference's wallet flows move USDB), so a transfer out of one consents in it. */
export const WALLET_CURRENCY = 'USDB';

/** CARD: the card's holds and pulls while it lists the wallet. TRANSACTION: the one hold of that transfer, of at most amount. */
export type ConsentGrant = { kind: 'CARD' } | { kind: 'TRANSACTION'; amount: string };

export type ConsentPlan = {
  /** The card or transfer the owner signs for. */
  resourceId: string;
  /** Whether the caller must create the resource with resourceId (a new card, a transfer), so it is answered back. */
  answersResourceId: boolean;
  activity: { type: string; parameters: Record<string, unknown> };
  /** Null when the change leaves the wallet off the card (closing it, replacing it): the owner consents to the change only. */
  grant: ConsentGrant | null;
};

/** The amount a transfer out of a wallet moves: required, because the owner signs for an amount. */
const transferAmountOf = (body: Record<string, unknown>): string => {
  const field = 'amount';
  if (body[field] === undefined)
    throw invalidInput('amount is required for a transfer out of an Embedded Wallet: its owner signs for the amount that leaves.', {
      field,
    });
  const amount = parseLedgerAmount(body[field], field);
  if (amount <= 0n) throw invalidInput('amount must be a whole number of minor units above 0.', { field });
  return amount.toString();
};

/** Leg 1's plan for the first wallet among the request's accounts; `mint` makes a fresh id of a type (a new card, a transfer). */
export const consentPlanOf = (
  data: WalletFundedChangeData,
  walletId: string,
  mint: (type: 'Card' | 'Transaction') => string,
): ConsentPlan => {
  const binds = data.bindAccountIds.includes(walletId);
  switch (data.operation) {
    case 'CREATE_CARD':
    case 'UPDATE_CARD': {
      const resourceId = data.operation === 'CREATE_CARD' ? mint('Card') : data.targetId;
      const activity = { type: 'ACTIVITY_TYPE_UPDATE_POLICY', parameters: { userId: walletId, operation: data.operation, resourceId } };
      return { resourceId, answersResourceId: data.operation === 'CREATE_CARD', activity, grant: binds ? { kind: 'CARD' } : null };
    }
    case 'TRANSFER_OUT': {
      const amount = transferAmountOf(data.body);
      const resourceId = mint('Transaction');
      const destination = (data.body['destination'] as { accountId?: unknown } | undefined)?.accountId;
      const parameters = {
        userId: walletId,
        operation: data.operation,
        resourceId,
        destinationAccountId: String(destination ?? ''),
        amount,
      };
      return {
        resourceId,
        answersResourceId: true,
        activity: { type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', parameters },
        grant: { kind: 'TRANSACTION', amount },
      };
    }
    default: {
      const unknownOperation: never = data.operation;
      throw invalidInput(`operation ${String(unknownOperation)} takes no wallet consent.`, { field: 'operation' });
    }
  }
};
