import {
  type CardBrandWire,
  type CardFormWire,
  type CardStateReasonWire,
  type CardStateWire,
  type CardWire,
  DomainError,
  type Event,
} from '@corridor/contracts';

// The Card aggregate: one stream per card, stream id = the card id (`Card:<uuid>`). Every event
// carries the card as it is after the event, so the read model, the integration events and the
// CARD.* webhooks need nothing else. The rules live in issue-card.ts, provision-card.ts and
// update-card.ts; this file holds the shapes and the fold.

export type CardView = {
  id: string;
  /** The platform whose card it is: every read and change of another platform is a 404. */
  platformId: string;
  cardholderId: string;
  platformCardId: string;
  /** Corridor made platformCardId up (none was sent): the issuer's suffix rule then reads cardholderId. */
  platformCardIdGenerated?: true;
  state: CardStateWire;
  stateReason: CardStateReasonWire | null;
  form: CardFormWire;
  brand: CardBrandWire;
  last4: string;
  expMonth: number;
  expYear: number;
  panEmbedUrl?: string;
  issuerRef: string;
  /** Ordered internal account ids, first tried first. Empty once the card is closed. */
  fundingSources: string[];
  /**
   * The sources bound when the card was closed. Not on the wire (a closed card shows
   * fundingSources []), kept so returns and late clearings of a closed card still know which
   * account paid (decision 0015).
   */
  detachedFundingSources?: string[];
  currency: string;
  /** The gateway's fingerprint of the POST that issued it, which a retry under its Idempotency-Key must match (not on the wire). */
  requestFingerprint?: string;
  createdAt: string;
  updatedAt: string;
};

/** The issuer's answer to "is it provisioned yet?" at issue: when to ask next (null: it will not finish by itself). */
export type CardIssued = Event<'CardIssued', { card: CardView; provisioningCheckAt: string }>;
export type CardProvisioningDeferred = Event<'CardProvisioningDeferred', { card: CardView; provisioningCheckAt: string | null }>;
export type CardActivated = Event<'CardActivated', { card: CardView }>;
export type CardIssueRejected = Event<'CardIssueRejected', { card: CardView }>;
export type CardFrozen = Event<'CardFrozen', { card: CardView }>;
export type CardUnfrozen = Event<'CardUnfrozen', { card: CardView }>;
export type CardClosed = Event<'CardClosed', { card: CardView }>;
export type CardFundingSourcesReplaced = Event<'CardFundingSourcesReplaced', { card: CardView; previous: string[] }>;

export type CardEvent =
  | CardIssued
  | CardProvisioningDeferred
  | CardActivated
  | CardIssueRejected
  | CardFrozen
  | CardUnfrozen
  | CardClosed
  | CardFundingSourcesReplaced;

export const cardEventTypes: readonly CardEvent['type'][] = [
  'CardIssued',
  'CardProvisioningDeferred',
  'CardActivated',
  'CardIssueRejected',
  'CardFrozen',
  'CardUnfrozen',
  'CardClosed',
  'CardFundingSourcesReplaced',
];

/** Events after which the card's state differs from before (CARD.STATE_CHANGE). */
export const stateChangeEventTypes: readonly CardEvent['type'][] = [
  'CardActivated',
  'CardIssueRejected',
  'CardFrozen',
  'CardUnfrozen',
  'CardClosed',
];

export type Card = { kind: 'None' } | { kind: 'Exists'; card: CardView; provisioningCheckAt: string | null };

export const cardDecider = {
  initialState: (): Card => ({ kind: 'None' }),
  evolve: (state: Card, event: CardEvent): Card => {
    switch (event.type) {
      case 'CardIssued':
      case 'CardProvisioningDeferred':
        return { kind: 'Exists', card: event.data.card, provisioningCheckAt: event.data.provisioningCheckAt };
      case 'CardActivated':
      case 'CardIssueRejected':
        return { kind: 'Exists', card: event.data.card, provisioningCheckAt: null };
      case 'CardFrozen':
      case 'CardUnfrozen':
      case 'CardClosed':
      case 'CardFundingSourcesReplaced':
        return { kind: 'Exists', card: event.data.card, provisioningCheckAt: state.kind === 'Exists' ? state.provisioningCheckAt : null };
      default: {
        const unhandled: never = event;
        return unhandled;
      }
    }
  },
};

// The reference has no card-specific 404 code; REFERENCE_NOT_FOUND is its generic one.
export const cardNotFound = (cardId: string): DomainError =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Card ${cardId.slice(0, 80)} was not found.`, { cardId: cardId.slice(0, 80) });

/** The reference's Card: the view without what only Corridor keeps (platform, detached sources). */
export const renderCard = (card: CardView): CardWire => ({
  id: card.id,
  cardholderId: card.cardholderId,
  platformCardId: card.platformCardId,
  state: card.state,
  stateReason: card.stateReason,
  brand: card.brand,
  form: card.form,
  last4: card.last4,
  expMonth: card.expMonth,
  expYear: card.expYear,
  ...(card.panEmbedUrl !== undefined ? { panEmbedUrl: card.panEmbedUrl } : {}),
  fundingSources: card.fundingSources,
  currency: card.currency,
  issuerRef: card.issuerRef,
  createdAt: card.createdAt,
  updatedAt: card.updatedAt,
});
