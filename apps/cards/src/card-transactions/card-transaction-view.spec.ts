// Pins down the reference's CardTransaction as rendered from a stream: summaries are sums of the
// stream's pulls, clearings and returns.
import { type CardTransactionEvent, evolveCardTransaction, initialCardTransaction, type OpenCardTransaction } from './card-transaction';
import { renderCardTransaction } from './card-transaction-view';

const id = 'CardTransaction:0190a000-0000-7000-8000-000000000001';
const at = '2026-05-08T14:30:00.000Z';
const after = '2026-05-08T15:00:00.000Z';
const usd = { code: 'USD' };

const stateOf = (events: CardTransactionEvent[]): OpenCardTransaction =>
  events.reduce(evolveCardTransaction, initialCardTransaction()) as OpenCardTransaction;
const authorized = (pullStatus: 'PENDING' | 'CONFIRMED' = 'CONFIRMED'): CardTransactionEvent => ({
  type: 'CardTransactionAuthorized',
  data: {
    cardTransactionId: id,
    cardId: 'Card:c',
    platformId: 'Platform:p',
    accountId: 'InternalAccount:a',
    currency: 'USD',
    amount: '1000',
    merchant: { descriptor: 'CAFE', mcc: '5814' },
    pullStatus,
    authorizedAt: at,
  },
});

describe('renderCardTransaction', () => {
  it('renders a fresh authorization with empty settlement and refund summaries', () =>
    expect(renderCardTransaction(stateOf([authorized()]))).toEqual({
      id,
      cardId: 'Card:c',
      status: 'AUTHORIZED',
      merchant: { descriptor: 'CAFE', mcc: '5814' },
      authorizedAmount: { amount: 1000, currency: expect.objectContaining(usd) as unknown },
      accountId: 'InternalAccount:a',
      pullSummary: { count: 1, totalAmount: 1000, pendingCount: 0 },
      refundSummary: { count: 0, totalAmount: 0 },
      settlementSummary: { count: 0, totalAmount: 0 },
      authorizedAt: at,
      lastEventAt: at,
      createdAt: at,
      updatedAt: at,
    }));

  it('counts a pending pull', () =>
    expect(renderCardTransaction(stateOf([authorized('PENDING')])).pullSummary).toEqual({ count: 1, totalAmount: 1000, pendingCount: 1 }));

  it('sums an over-authorized clearing, its post-hoc pull and a partial return', () => {
    const wire = renderCardTransaction(
      stateOf([
        authorized(),
        {
          type: 'ClearingPosted',
          data: { cardTransactionId: id, clearing: 1, amount: '1500', fromHold: '1000', holdRemaining: '0', postedAt: after },
        },
        { type: 'PostHocPullPosted', data: { cardTransactionId: id, clearing: 1, amount: '500', status: 'CONFIRMED', postedAt: after } },
        { type: 'CardRefunded', data: { cardTransactionId: id, refund: 1, refundId: 'CardRefund:r1', amount: '200', refundedAt: after } },
      ]),
    );
    expect(wire).toMatchObject({
      status: 'SETTLED',
      settledAmount: { amount: 1500 },
      refundedAmount: { amount: 200 },
      pullSummary: { count: 2, totalAmount: 1500, pendingCount: 0 },
      settlementSummary: { count: 1, totalAmount: 1500 },
      refundSummary: { count: 1, totalAmount: 200 },
      updatedAt: after,
    });
  });
});
