import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type CardEvent, cardEventTypes, type CardView } from './card';

/** One row per card: the card as shown, plus the columns GET /cards filters and pages on. */
export type CardRow = {
  id: string;
  platformId: string;
  cardholderId: string;
  platformCardId: string;
  state: string;
  fundingSources: string[];
  card: CardView;
  createdAt: Date;
  updatedAt: Date;
};

export const CardEntity = new EntitySchema<CardRow>({
  name: 'CardRow',
  tableName: 'cards',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    cardholderId: { type: 'string' },
    platformCardId: { type: 'string' },
    state: { type: 'string' },
    fundingSources: { type: 'json' },
    card: { type: 'json' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const evolveCardView = (_row: CardRow | null, recorded: RecordedEvent): CardRow | null => {
  const event = recorded as unknown as CardEvent;
  const card = event.data.card;
  return {
    id: card.id,
    platformId: card.platformId,
    cardholderId: card.cardholderId,
    platformCardId: card.platformCardId,
    state: card.state,
    fundingSources: card.fundingSources,
    card,
    createdAt: new Date(card.createdAt),
    updatedAt: new Date(card.updatedAt),
  };
};

export const cardViewProjection: Projection<CardRow> = {
  name: 'cards',
  version: 1,
  canHandle: [...cardEventTypes],
  entity: CardEntity,
  keyOf: (event) => String((event.data['card'] as CardView).id),
  evolve: evolveCardView,
};
