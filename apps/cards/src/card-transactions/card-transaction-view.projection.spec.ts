// The card_transactions read model folds the decider's own evolve, so a row renders exactly what
// the stream does after every event; due_at is set while the delayed pull is PENDING and cleared
// when it confirms; the stored state survives a JSON round trip (the jsonb column).
import type { RecordedEvent } from '@corridor/event-store';
import { type CardTransactionEvent, evolveCardTransaction, initialCardTransaction } from './card-transaction';
import { renderCardTransaction } from './card-transaction-view';
import { type CardTransactionRow, evolveCardTransactionRow, loadCardTransaction } from './card-transaction-view.projection';

const id = 'CardTransaction:0190a000-0000-7000-8000-000000000001';
const at = '2026-05-08T14:30:00.000Z';
const later = '2026-05-08T15:00:00.000Z';
let position = 0n;

const recorded = (event: CardTransactionEvent): RecordedEvent => {
  position += 1n;
  return {
    eventId: `e${position}`,
    streamId: id,
    streamPosition: Number(position),
    globalPosition: position,
    type: event.type,
    data: event.data as unknown as Record<string, unknown>,
    metadata: {
      platformId: 'Platform:p1',
      correlationId: 'c',
      requestId: 'r',
      actor: { kind: 'system', name: 'test' },
      occurredAt: at,
      schemaVersion: 1,
    },
  };
};

const authorized = (extra: Record<string, unknown> = {}): CardTransactionEvent =>
  ({
    type: 'CardTransactionAuthorized',
    data: {
      cardTransactionId: id,
      cardId: 'Card:c1',
      platformId: 'Platform:p1',
      accountId: 'InternalAccount:a1',
      currency: 'USD',
      amount: '1000',
      merchant: { descriptor: 'SHOP' },
      pullStatus: 'CONFIRMED',
      authorizedAt: at,
      ...extra,
    },
  }) as CardTransactionEvent;

/** Folds the events into a row (through a JSON round trip after each, as the jsonb column does). */
const rowAfter = (events: CardTransactionEvent[]): CardTransactionRow | null =>
  events.reduce<CardTransactionRow | null>((row, event) => {
    const next = evolveCardTransactionRow(row, recorded(event));
    return next && { ...next, state: JSON.parse(JSON.stringify(next.state)) };
  }, null);

const rendered = (events: CardTransactionEvent[]) => {
  const state = events.reduce(evolveCardTransaction, initialCardTransaction());
  if (state.kind !== 'Open') throw new Error('not open');
  return renderCardTransaction(state);
};

const lives: [string, CardTransactionEvent[]][] = [
  ['authorized', [authorized()]],
  [
    'partially then fully settled, with a post-hoc pull, then partly returned',
    [
      authorized(),
      {
        type: 'ClearingPosted',
        data: { cardTransactionId: id, clearing: 1, amount: '400', fromHold: '400', holdRemaining: '600', postedAt: later },
      },
      {
        type: 'ClearingPosted',
        data: { cardTransactionId: id, clearing: 2, amount: '900', fromHold: '600', holdRemaining: '0', postedAt: later },
      },
      { type: 'PostHocPullPosted', data: { cardTransactionId: id, clearing: 2, amount: '300', status: 'CONFIRMED', postedAt: later } },
      { type: 'CardRefunded', data: { cardTransactionId: id, refund: 1, refundId: 'CardRefund:r1', amount: '500', refundedAt: later } },
    ],
  ],
  [
    'expired on a clearing of 0',
    [
      authorized(),
      { type: 'AuthorizationExpired', data: { cardTransactionId: id, clearing: 1, releasedAmount: '1000', expiredAt: later } },
    ],
  ],
  ['pull confirmation failed (006)', [authorized(), { type: 'PullConfirmationFailed', data: { cardTransactionId: id, failedAt: at } }]],
];

describe('card_transactions read model', () => {
  it.each(lives)('renders what the stream renders: %s', (_name, events) => {
    const row = rowAfter(events)!;
    expect(renderCardTransaction(loadCardTransaction(row.state))).toEqual(rendered(events));
    expect(row).toMatchObject({
      id,
      platformId: 'Platform:p1',
      cardId: 'Card:c1',
      status: rendered(events).status,
      dueAt: null,
      createdAt: new Date(at),
    });
  });

  it('keeps the delayed pull due while PENDING and clears the timer when it confirms', () => {
    const pending = [authorized({ pullStatus: 'PENDING', pullDueAt: '2026-05-08T14:30:30.000Z' })];
    expect(rowAfter(pending)!.dueAt).toEqual(new Date('2026-05-08T14:30:30.000Z'));
    expect(renderCardTransaction(loadCardTransaction(rowAfter(pending)!.state)).pullSummary).toEqual({
      count: 1,
      totalAmount: 1000,
      pendingCount: 1,
    });
    const confirmed = [...pending, { type: 'PullConfirmed', data: { cardTransactionId: id, confirmedAt: later } } as CardTransactionEvent];
    const row = rowAfter(confirmed)!;
    expect(row.dueAt).toBeNull();
    expect(row.updatedAt).toEqual(new Date(later));
    expect(renderCardTransaction(loadCardTransaction(row.state)).pullSummary).toEqual({ count: 1, totalAmount: 1000, pendingCount: 0 });
  });

  it('leaves a row alone for an event whose authorization it never saw', () => {
    expect(rowAfter([{ type: 'PullConfirmed', data: { cardTransactionId: id, confirmedAt: later } }])).toBeNull();
  });
});
