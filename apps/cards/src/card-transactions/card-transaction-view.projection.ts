import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import {
  type CardTransaction,
  type CardTransactionEvent,
  cardTransactionEventTypes,
  evolveCardTransaction,
  type OpenCardTransaction,
  type PullStatus,
} from './card-transaction';

// The card_transactions read model: one row per card transaction, holding the decider's state as
// it stands after the stream's last event (bigints as decimal strings), so GET renders exactly what
// a simulator's reply rendered. due_at is the persisted timer of the sandbox's delayed pull
// (descriptor suffix 005): set while the pull is PENDING, cleared once it is confirmed; the
// CardPullTimer sweeps the rows that fell due on the service clock.

/** OpenCardTransaction with every bigint as a decimal string: what the jsonb column holds. */
export type StoredCardTransaction = Omit<
  OpenCardTransaction,
  'authorizedAmount' | 'holdRemaining' | 'pulls' | 'settlements' | 'refunds'
> & {
  authorizedAmount: string;
  holdRemaining: string;
  pulls: { amount: string; status: PullStatus }[];
  settlements: string[];
  refunds: { refundId: string; amount: string; refundedAt: string }[];
};

export type CardTransactionRow = {
  id: string;
  platformId: string;
  cardId: string;
  status: string;
  /** When the PENDING delayed pull confirms; null when nothing is pending. */
  dueAt: Date | null;
  state: StoredCardTransaction;
  createdAt: Date;
  updatedAt: Date;
};

export const CardTransactionEntity = new EntitySchema<CardTransactionRow>({
  name: 'CardTransactionRow',
  tableName: 'card_transactions',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    cardId: { type: 'string' },
    status: { type: 'string' },
    dueAt: { type: 'Date', nullable: true },
    state: { type: 'json' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const storeCardTransaction = (state: OpenCardTransaction): StoredCardTransaction => ({
  ...state,
  authorizedAmount: state.authorizedAmount.toString(),
  holdRemaining: state.holdRemaining.toString(),
  pulls: state.pulls.map((pull) => ({ amount: pull.amount.toString(), status: pull.status })),
  settlements: state.settlements.map((amount) => amount.toString()),
  refunds: state.refunds.map((refund) => ({ ...refund, amount: refund.amount.toString() })),
});

export const loadCardTransaction = (stored: StoredCardTransaction): OpenCardTransaction => ({
  ...stored,
  authorizedAmount: BigInt(stored.authorizedAmount),
  holdRemaining: BigInt(stored.holdRemaining),
  pulls: stored.pulls.map((pull) => ({ amount: BigInt(pull.amount), status: pull.status })),
  settlements: stored.settlements.map((amount) => BigInt(amount)),
  refunds: stored.refunds.map((refund) => ({ ...refund, amount: BigInt(refund.amount) })),
});

/** Pure: the decider's own evolve on the stored state, so the row and the stream cannot disagree. */
export const evolveCardTransactionRow = (row: CardTransactionRow | null, recorded: RecordedEvent): CardTransactionRow | null => {
  const event = recorded as unknown as CardTransactionEvent;
  const before: CardTransaction = row === null ? { kind: 'None' } : loadCardTransaction(row.state);
  // An event for a transaction whose authorization this row never saw cannot come from our
  // deciders; the row is left as it is rather than halting the read model.
  if (before.kind === 'None' && event.type !== 'CardTransactionAuthorized') return row;
  const after = evolveCardTransaction(before, event);
  if (after.kind === 'None') return row;
  return {
    id: after.id,
    platformId: after.platformId,
    cardId: after.cardId,
    status: after.status,
    dueAt: after.pullDueAt === undefined ? null : new Date(after.pullDueAt),
    state: storeCardTransaction(after),
    createdAt: new Date(after.authorizedAt),
    updatedAt: new Date(after.lastEventAt),
  };
};

export const cardTransactionViewProjection: Projection<CardTransactionRow> = {
  name: 'card-transactions',
  version: 1,
  canHandle: [...cardTransactionEventTypes],
  entity: CardTransactionEntity,
  keyOf: (event) => String(event.data['cardTransactionId']),
  evolve: evolveCardTransactionRow,
};

/** The read models of the card-transaction slice, for the cards app's EventSourcingModule. */
export const cardTransactionProjections = [cardTransactionViewProjection];
