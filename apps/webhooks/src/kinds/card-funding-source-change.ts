import type { WebhookKind } from '../webhook-kind';

// CARD.FUNDING_SOURCE_CHANGE when a PATCH replaced a card's funding sources, with the reference
// Card after the change (events.cards.Card.CardFundingSourcesReplaced carries it as {card}).
// Closing a card also empties its sources, but that is one change, the close, and is told by
// CARD.STATE_CHANGE, whose card shows fundingSources [] (decision 0015).
export const kind: WebhookKind = {
  name: 'card-funding-source-change',
  types: ['CARD.FUNDING_SOURCE_CHANGE'],
  plan(event) {
    if (event.service !== 'cards' || event.aggregate !== 'Card' || event.type !== 'CardFundingSourcesReplaced') return null;
    const card = event.data['card'];
    if (typeof card !== 'object' || card === null) return null;
    return { type: 'CARD.FUNDING_SOURCE_CHANGE', resourceId: event.streamId, render: { inline: card as Record<string, unknown> } };
  },
  retried: () => true,
};
