import type { Command } from '@corridor/contracts';
import type { Card, CardEvent } from './card';
import type { ProvisioningStatus } from './card-issuer';

// Recording what the issuer said about a PENDING_ISSUE card: live → ACTIVE; refused → CLOSED
// with ISSUER_REJECTED; still pending → the next time to ask (null: the issuer will not finish by
// itself). Only a PENDING_ISSUE card whose check is due changes, so a repeated or concurrent
// sweep decides nothing.

export type ProvisionCard = Command<'ProvisionCard', { cardId: string; issuer: ProvisioningStatus }, { now: Date }>;

export const provisionCard = (command: ProvisionCard, state: Card): CardEvent[] => {
  if (state.kind !== 'Exists' || state.card.state !== 'PENDING_ISSUE') return [];
  const { now } = command.metadata;
  if (state.provisioningCheckAt === null || now.getTime() < Date.parse(state.provisioningCheckAt)) return [];
  const at = now.toISOString();
  const { issuer } = command.data;
  switch (issuer.status) {
    case 'ACTIVE':
      return [{ type: 'CardActivated', data: { card: { ...state.card, state: 'ACTIVE', stateReason: null, updatedAt: at } } }];
    case 'REJECTED':
      return [
        { type: 'CardIssueRejected', data: { card: { ...state.card, state: 'CLOSED', stateReason: 'ISSUER_REJECTED', updatedAt: at } } },
      ];
    case 'PENDING': {
      const checkAt = issuer.checkAgainAt === null ? null : issuer.checkAgainAt.toISOString();
      if (checkAt === state.provisioningCheckAt) return [];
      return [{ type: 'CardProvisioningDeferred', data: { card: state.card, provisioningCheckAt: checkAt } }];
    }
    default: {
      const unhandled: never = issuer;
      return unhandled;
    }
  }
};
