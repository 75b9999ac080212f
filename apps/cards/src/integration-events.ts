import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';

// Every change a platform hears about (CARD.STATE_CHANGE, CARD.FUNDING_SOURCE_CHANGE) and the
// issue itself, each carrying the card after the event; a deferred provisioning check and the
// platformCardId reservations stay private.
const published = new Set(['CardIssued', 'CardActivated', 'CardIssueRejected', 'CardFrozen', 'CardUnfrozen', 'CardClosed', 'CardFundingSourcesReplaced']);

export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null => (published.has(event.type) ? integrationEvent('cards', 'Card', event) : null);
