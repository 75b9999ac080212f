import type { CurrencyAmountWire } from './money';

// The card-transaction messages between the gateway and the cards service, and the reference's
// CardTransaction on the wire. Amounts travel as decimal strings of minor units over NATS and as
// integers on the HTTP wire.

export const cardTransactionSubjects = {
  authorize: 'cards.card-transaction.authorize',
  clear: 'cards.card-transaction.clear',
  return: 'cards.card-transaction.return',
  get: 'cards.card-transaction.get',
} as const;

export type CardMerchantWire = { descriptor: string; mcc?: string; country?: string };

/** POST /sandbox/cards/{id}/simulate/authorization. idempotencyKey makes a retry name the same transaction. */
export type SimulateCardAuthorizationData = {
  cardId: string;
  amount: string;
  currency: string;
  merchant: CardMerchantWire;
  idempotencyKey?: string;
};
export type SimulateCardClearingData = { cardId: string; cardTransactionId: string; amount: string };
export type SimulateCardReturnData = { cardId: string; cardTransactionId: string; amount: string };
export type GetCardTransactionData = { cardTransactionId: string };

export type CardTransactionStatusWire = 'AUTHORIZED' | 'PARTIALLY_SETTLED' | 'SETTLED' | 'REFUNDED' | 'EXCEPTION';

export type CardRefundWire = { id: string; amount: CurrencyAmountWire; createdAt: string };

export type CardTransactionWire = {
  id: string;
  cardId: string;
  status: CardTransactionStatusWire;
  merchant: CardMerchantWire;
  authorizedAmount: CurrencyAmountWire;
  settledAmount?: CurrencyAmountWire;
  refundedAmount?: CurrencyAmountWire;
  accountId: string;
  pullSummary: { count: number; totalAmount: number; pendingCount?: number };
  refundSummary: { count: number; totalAmount: number };
  settlementSummary: { count: number; totalAmount: number };
  authorizedAt: string;
  lastEventAt?: string;
  createdAt: string;
  updatedAt: string;
};
