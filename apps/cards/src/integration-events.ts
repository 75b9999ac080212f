import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';
import { type CardView, renderCard } from './cards/card';

// Every change a platform hears about (CARD.STATE_CHANGE, CARD.FUNDING_SOURCE_CHANGE) and the
// issue itself, each carrying {card}: the reference Card right after the event, so a webhook needs
// nothing else. A deferred provisioning check and the platformCardId reservations stay private.
const published = new Set([
  'CardIssued',
  'CardActivated',
  'CardIssueRejected',
  'CardFrozen',
  'CardUnfrozen',
  'CardClosed',
  'CardFundingSourcesReplaced',
]);

export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null =>
  published.has(event.type) ? integrationEvent('cards', 'Card', event, { card: renderCard(event.data['card'] as CardView) }) : null;
