import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type CardEvent, cardEventTypes, type CardView } from './card';

/** The persisted provisioning timer of a card: when the issuer is next asked (null: not by the sweep). */
export type CardProvisioningRow = { id: string; platformId: string; state: string; dueAt: Date | null; updatedAt: Date };

export const CardProvisioningEntity = new EntitySchema<CardProvisioningRow>({
  name: 'CardProvisioningRow',
  tableName: 'card_provisioning',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    state: { type: 'string' },
    dueAt: { type: 'Date', nullable: true },
    updatedAt: { type: 'Date' },
  },
});

export const evolveCardProvisioning = (row: CardProvisioningRow | null, recorded: RecordedEvent): CardProvisioningRow | null => {
  const event = recorded as unknown as CardEvent;
  const { card } = event.data;
  const at = new Date(card.updatedAt);
  switch (event.type) {
    case 'CardIssued':
    case 'CardProvisioningDeferred': {
      const checkAt = event.data.provisioningCheckAt;
      return {
        id: card.id,
        platformId: card.platformId,
        state: card.state,
        dueAt: checkAt === null ? null : new Date(checkAt),
        updatedAt: at,
      };
    }
    default:
      // Any other event ends provisioning (or happens after it): the sweep no longer looks at the card.
      return row && { ...row, state: card.state, dueAt: null, updatedAt: at };
  }
};

export const cardProvisioningProjection: Projection<CardProvisioningRow> = {
  name: 'card-provisioning',
  version: 1,
  canHandle: [...cardEventTypes],
  entity: CardProvisioningEntity,
  keyOf: (event) => String((event.data['card'] as CardView).id),
  evolve: evolveCardProvisioning,
};
