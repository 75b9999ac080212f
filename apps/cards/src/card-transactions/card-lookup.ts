// How the card-transaction slice reads a card. The cards service provides it from its `cards`
// read model; card transactions need nothing else of the card.

export type CardForTransactions = {
  id: string;
  platformId: string;
  state: string;
  /** Ordered: the first that can cover an authorization is held. */
  fundingSources: string[];
  currency: string;
};

export interface CardLookup {
  /** Another platform's card is undefined, as if it did not exist. */
  get(cardId: string, platformId: string): Promise<CardForTransactions | undefined>;
}

export const CARD_LOOKUP = Symbol('CARD_LOOKUP');
