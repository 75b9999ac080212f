import { DomainError, type HoldData } from '@corridor/contracts';
import type { CardForTransactions } from './card-lookup';
import { type CardMerchant, declined, holdIdOf, operationIds, screenAuthorization } from './card-transaction';

// The plan of a card authorization, pure: the screen (currency, the card's state, the sandbox's
// declines), then the funding sources in the card's order, each asked for the same hold (one
// operation id and hold id for the transaction, so a retry after a crash finds the hold it placed
// on whichever source took it). A source whose refusal means it cannot pay (CANNOT_PAY) passes to
// the next; when none is left the authorization is declined INSUFFICIENT_FUNDS. The controller
// performs the holds in order (holdOnFirstSource) and records the one that took.

/**
 * Refusals that mean "this funding source cannot pay": the authorization tries the next one. An
 * Embedded Wallet without its owner's consent to fund this card (decision 0020) cannot pay either.
 */
const CANNOT_PAY: ReadonlySet<string> = new Set([
  'INSUFFICIENT_FUNDS',
  'ACCOUNT_FROZEN',
  'ACCOUNT_NOT_ACTIVE',
  'ACCOUNT_CLOSED',
  'WALLET_CONSENT_REQUIRED',
]);

/** Whether the ledger's refusal says the account cannot pay (pass on, or a failed pull), as opposed to an error to surface. */
export const cannotPay = (error: unknown): error is DomainError => error instanceof DomainError && CANNOT_PAY.has(error.code);

export type AuthorizationRequest = { cardTransactionId: string; amount: bigint; currency: string; merchant: CardMerchant };

export type AuthorizationPlan = {
  cardId: string;
  /** The funding sources to ask, in order. */
  sources: readonly string[];
  /** The hold every source is asked for, without the account. */
  hold: Omit<HoldData, 'accountId'>;
};

export const planAuthorization = (card: CardForTransactions, request: AuthorizationRequest): AuthorizationPlan => {
  screenAuthorization(card, request);
  const { cardTransactionId, amount } = request;
  return {
    cardId: card.id,
    sources: [...card.fundingSources],
    hold: {
      operationId: operationIds.hold(cardTransactionId),
      holdId: holdIdOf(cardTransactionId),
      amount: amount.toString(),
      currency: card.currency,
      cause: { kind: 'CARD_SETTLEMENT', id: cardTransactionId },
      cardId: card.id,
    },
  };
};

/** The hold to ask for after `refused` sources could not pay; none left declines the authorization. */
export const nextHold = (plan: AuthorizationPlan, refused: number): HoldData => {
  const accountId = plan.sources[refused];
  if (accountId === undefined) throw declined('INSUFFICIENT_FUNDS', plan.cardId);
  return { ...plan.hold, accountId };
};
