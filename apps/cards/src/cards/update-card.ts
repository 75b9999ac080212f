import { type CardTargetState, type Command, DomainError, invalidInput } from '@corridor/contracts';
import { type Card, type CardEvent, cardNotFound, type CardView } from './card';
import { eligibleCurrencyOf, type FundingSourceFacts } from './funding-sources';

// PATCH /cards/{id}: a state move and/or a full replacement of the funding sources.
// Moves: ACTIVE ⇄ FROZEN and ACTIVE | FROZEN → CLOSED (terminal: CLOSED_BY_PLATFORM, sources
// detached). Asking for the state the card is already in is a no-op, so a retried PATCH answers
// 200 with the card unchanged (decision 0015); every other move is 409 INVALID_STATE_TRANSITION.
// A closed card refuses a second close (CARD_ALREADY_CLOSED) and any other change (CARD_NOT_MUTABLE).

export type UpdateCard = Command<
  'UpdateCard',
  {
    cardId: string;
    platformId: string;
    state?: CardTargetState;
    fundingSources?: string[];
    /** Facts about each requested source (empty when fundingSources is absent). */
    sources: FundingSourceFacts[];
  },
  { now: Date; eligibleCurrencies: readonly string[] }
>;

const sameList = (left: readonly string[], right: readonly string[]): boolean =>
  left.length === right.length && left.every((value, index) => value === right[index]);

export const updateCard = (command: UpdateCard, state: Card): CardEvent[] => {
  const { data, metadata } = command;
  if (state.kind === 'None' || state.card.platformId !== data.platformId) throw cardNotFound(data.cardId);
  if (data.state === undefined && data.fundingSources === undefined) {
    throw invalidInput('Send state, fundingSources or both; the request changes nothing.', { field: 'state' });
  }
  if (data.state === 'CLOSED' && data.fundingSources !== undefined) {
    throw invalidInput('fundingSources cannot be sent with state CLOSED: closing a card detaches its sources.', {
      field: 'fundingSources',
    });
  }
  const card = state.card;
  if (card.state === 'CLOSED') {
    if (data.state === 'CLOSED')
      throw new DomainError('CARD_ALREADY_CLOSED', 'conflict', `Card ${card.id} is already CLOSED (${card.stateReason ?? 'no reason'}).`, {
        cardId: card.id,
      });
    throw new DomainError('CARD_NOT_MUTABLE', 'conflict', `Card ${card.id} is CLOSED; a closed card cannot be changed.`, {
      cardId: card.id,
    });
  }
  const at = metadata.now.toISOString();
  const events: CardEvent[] = [];
  let current = card;
  if (data.state !== undefined && data.state !== card.state) {
    const event = moveState(current, data.state, at);
    events.push(event);
    current = event.data.card;
  }
  if (data.fundingSources !== undefined) {
    eligibleCurrencyOf('fundingSources', data.fundingSources, data.sources, {
      cardholderId: card.cardholderId,
      eligibleCurrencies: metadata.eligibleCurrencies,
      cardCurrency: card.currency,
    });
    if (!sameList(current.fundingSources, data.fundingSources)) {
      events.push({
        type: 'CardFundingSourcesReplaced',
        data: { card: { ...current, fundingSources: [...data.fundingSources], updatedAt: at }, previous: current.fundingSources },
      });
    }
  }
  return events;
};

const moveState = (card: CardView, target: CardTargetState, at: string): CardEvent => {
  const refuse = (): never => {
    throw new DomainError(
      'INVALID_STATE_TRANSITION',
      'conflict',
      `Card ${card.id} cannot move from ${card.state} to ${target}; allowed: ACTIVE ⇄ FROZEN, ACTIVE | FROZEN → CLOSED.`,
      {
        cardId: card.id,
        from: card.state,
        to: target,
      },
    );
  };
  if (card.state !== 'ACTIVE' && card.state !== 'FROZEN') return refuse();
  switch (target) {
    case 'FROZEN':
      return { type: 'CardFrozen', data: { card: { ...card, state: 'FROZEN', updatedAt: at } } };
    case 'ACTIVE':
      return { type: 'CardUnfrozen', data: { card: { ...card, state: 'ACTIVE', updatedAt: at } } };
    case 'CLOSED':
      return {
        type: 'CardClosed',
        data: {
          card: {
            ...card,
            state: 'CLOSED',
            stateReason: 'CLOSED_BY_PLATFORM',
            fundingSources: [],
            detachedFundingSources: card.fundingSources,
            updatedAt: at,
          },
        },
      };
    default:
      return refuse();
  }
};
