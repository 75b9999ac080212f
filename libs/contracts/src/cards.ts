// NATS message data of the cards service and the reference's Card on the wire. The spec names
// the provisioning state PENDING_ISSUE (the reference says PROCESSING; see reference/).

export type CardStateWire = 'PENDING_ISSUE' | 'ACTIVE' | 'FROZEN' | 'CLOSED';
export type CardStateReasonWire = 'ISSUER_REJECTED' | 'CLOSED_BY_PLATFORM' | 'CLOSED_BY_GRID';
export type CardFormWire = 'VIRTUAL';
export type CardBrandWire = 'VISA' | 'MASTERCARD';

export const cardStates: readonly CardStateWire[] = ['PENDING_ISSUE', 'ACTIVE', 'FROZEN', 'CLOSED'];
/** The states a PATCH may ask for. */
export const cardTargetStates = ['ACTIVE', 'FROZEN', 'CLOSED'] as const;
export type CardTargetState = (typeof cardTargetStates)[number];

export type CardWire = {
  id: string;
  cardholderId: string;
  platformCardId?: string;
  state: CardStateWire;
  stateReason: CardStateReasonWire | null;
  brand?: CardBrandWire;
  form: CardFormWire;
  last4?: string;
  expMonth?: number;
  expYear?: number;
  panEmbedUrl?: string;
  /** Ordered internal account ids, first tried first; [] once the card is closed (sources detached). */
  fundingSources: string[];
  currency?: string;
  issuerRef?: string;
  createdAt: string;
  updatedAt: string;
};

/**
 * cardId: set by the gateway (never by a client) when an Embedded Wallet's owner signed for the
 * card on the signed retry: the card takes the id that consent names (decision 0020).
 */
export type CreateCardData = {
  cardholderId: string;
  platformCardId?: string;
  form: CardFormWire;
  fundingSources: string[];
  cardId?: string;
};
/** asOf (a Corridor extension, decision 0039): the card as it stood at that time, folded from its events. */
export type CardIdData = { cardId: string; asOf?: string };
export type UpdateCardData = { cardId: string; state?: CardTargetState; fundingSources?: string[] };
export type ListCardsData = {
  cardholderId?: string;
  accountId?: string;
  platformCardId?: string;
  state?: string;
  sortOrder?: 'asc' | 'desc';
  limit: number;
  cursor?: string;
};
