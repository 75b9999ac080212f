import type { WebhookKind } from '../webhook-kind';

// CARD.STATE_CHANGE on every change of a card's state: provisioning done (ACTIVE) or refused
// (CLOSED, ISSUER_REJECTED), frozen, unfrozen, closed by the platform. The cards service's
// events.cards.Card.<EventType> carries {card}, the reference Card right after the event.
const stateChanges = new Set(['CardActivated', 'CardIssueRejected', 'CardFrozen', 'CardUnfrozen', 'CardClosed']);

export const kind: WebhookKind = {
  name: 'card-state-change',
  types: ['CARD.STATE_CHANGE'],
  plan(event) {
    if (event.service !== 'cards' || event.aggregate !== 'Card' || !stateChanges.has(event.type)) return null;
    const card = event.data['card'];
    if (typeof card !== 'object' || card === null) return null;
    return { type: 'CARD.STATE_CHANGE', resourceId: event.streamId, render: { inline: card as Record<string, unknown> } };
  },
  retried: () => true,
};
