import { Injectable } from '@nestjs/common';
import { EventSourcing } from '@corridor/event-store';
import { CardEntity } from '../cards/card-view.projection';
import type { CardForTransactions, CardLookup } from './card-lookup';

/** CardLookup on the cards read model; tenancy is the platform filter, so another platform's card is undefined. */
@Injectable()
export class CardViewLookup implements CardLookup {
  constructor(private readonly eventSourcing: EventSourcing) {}

  async get(cardId: string, platformId: string): Promise<CardForTransactions | undefined> {
    const row = await this.eventSourcing.em.findOne(
      CardEntity,
      { id: cardId, platformId },
      { fields: ['id', 'platformId', 'state', 'fundingSources', 'card'] },
    );
    if (!row) return undefined;
    return {
      id: row.id,
      platformId: row.platformId,
      state: row.state,
      fundingSources: row.fundingSources,
      currency: row.card.currency ?? '',
    };
  }
}
