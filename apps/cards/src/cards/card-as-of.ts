import type { CardWire } from '@corridor/contracts';
import { foldAsOf, type RecordedEvent } from '@corridor/event-store';
import { cardEventTypes, renderCard } from './card';
import { type CardRow, evolveCardView } from './card-view.projection';

const isCardEvent = (event: RecordedEvent): boolean => (cardEventTypes as readonly string[]).includes(event.type);

/**
 * GET /cards/{id}?asOf= (decision 0039): the card as the read model showed it at `at`, its
 * stream's card events folded by the cards view up to then. Null before it was issued or when it
 * is another platform's: both answer like an unknown id.
 */
export const cardAsOf = (events: readonly RecordedEvent[], at: Date, platformId: string): CardWire | null => {
  const row = foldAsOf<CardRow>(events, at, (card, event) => (isCardEvent(event) ? evolveCardView(card, event) : card));
  return row && row.platformId === platformId ? renderCard(row.card) : null;
};
