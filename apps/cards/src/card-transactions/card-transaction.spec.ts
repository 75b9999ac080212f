// Pins down a card transaction's life: authorization (and the sandbox descriptor suffixes),
// partial and full clearing, the post-hoc pull, expiry, and returns down to REFUNDED.
import { deciderSpec } from '@corridor/testing';
import {
  type AuthorizeCardTransaction,
  authorizeCardTransaction,
  type CardTransaction,
  cardTransactionDecider,
  type CardTransactionEvent,
  type ClearCardTransaction,
  type ClearingPlan,
  clearCardTransaction,
  type ConfirmPendingPull,
  confirmPendingPull,
  evolveCardTransaction,
  initialCardTransaction,
  planClearing,
  type ReturnCardTransaction,
  returnCardTransaction,
  screenAuthorization,
} from './card-transaction';

const id = 'CardTransaction:0190a000-0000-7000-8000-000000000001';
const cardId = 'Card:0190a000-0000-7000-8000-00000000000c';
const platformId = 'Platform:p1';
const accountId = 'InternalAccount:a1';
const now = new Date('2026-05-08T14:30:00.000Z');
const later = new Date('2026-05-08T15:00:00.000Z');
const card = { id: cardId, platformId, state: 'ACTIVE', currency: 'USD' };
const merchant = { descriptor: 'BLUE BOTTLE COFFEE SF' };

const authorize = (data: Partial<AuthorizeCardTransaction['data']> = {}): AuthorizeCardTransaction => ({
  type: 'AuthorizeCardTransaction',
  data: { cardTransactionId: id, card, accountId, amount: 1000n, currency: 'USD', merchant, ...data },
  metadata: { now },
});
/** The plan the controller makes from the state before the clearing; a nominal first clearing where none can be made. */
const planOn = (before: CardTransactionEvent[], amount: bigint): ClearingPlan => {
  const state = stateAfter(before);
  try {
    if (state.kind === 'Open') return planClearing(state, amount);
  } catch {
    // A state that cannot be cleared: the decider must refuse it whatever the plan says.
  }
  return { clearing: 1, amount, fromHold: amount, holdRemaining: 0n, release: 0n, postHocPull: 0n };
};
const clear = (
  amount: bigint,
  postHocPull?: ClearCardTransaction['data']['postHocPull'],
  before: CardTransactionEvent[] = [authorized()],
): ClearCardTransaction => ({
  type: 'ClearCardTransaction',
  data: { cardTransactionId: id, platformId, cardId, plan: planOn(before, amount), ...(postHocPull ? { postHocPull } : {}) },
  metadata: { now: later },
});
const giveBack = (amount: bigint, refund = 1): ReturnCardTransaction => ({
  type: 'ReturnCardTransaction',
  data: { cardTransactionId: id, platformId, cardId, refundId: `CardRefund:r${refund}`, plan: { refund, amount } },
  metadata: { now: later },
});

const authorized = (descriptor = merchant.descriptor, extra: Partial<CardTransactionEvent['data']> = {}): CardTransactionEvent =>
  ({
    type: 'CardTransactionAuthorized',
    data: {
      cardTransactionId: id,
      cardId,
      platformId,
      accountId,
      currency: 'USD',
      amount: '1000',
      merchant: { descriptor },
      pullStatus: 'CONFIRMED',
      authorizedAt: now.toISOString(),
      ...extra,
    },
  }) as CardTransactionEvent;
const posted = (clearing: number, amount: string, fromHold: string, holdRemaining: string): CardTransactionEvent => ({
  type: 'ClearingPosted',
  data: { cardTransactionId: id, clearing, amount, fromHold, holdRemaining, postedAt: later.toISOString() },
});
const refunded = (refund: number, amount: string): CardTransactionEvent => ({
  type: 'CardRefunded',
  data: { cardTransactionId: id, refund, refundId: `CardRefund:r${refund}`, amount, refundedAt: later.toISOString() },
});

const stateAfter = (events: CardTransactionEvent[]): CardTransaction => events.reduce(evolveCardTransaction, initialCardTransaction());
const statusAfter = (events: CardTransactionEvent[]) => {
  const state = stateAfter(events);
  return state.kind === 'Open' ? state.status : 'None';
};

describe('screenAuthorization', () => {
  it('lets an active card in its own currency through', () =>
    expect(() => screenAuthorization(card, { currency: 'USD', merchant })).not.toThrow());

  it.each(['FROZEN', 'CLOSED', 'PENDING_ISSUE'])('declines a %s card with CARD_PAUSED', (state) =>
    expect(() => screenAuthorization({ ...card, state }, { currency: 'USD', merchant })).toThrow(
      expect.objectContaining({ code: 'CARD_PAUSED', status: 400 }) as Error,
    ),
  );

  it('declines descriptor suffix 002 with INSUFFICIENT_FUNDS', () =>
    expect(() => screenAuthorization(card, { currency: 'USD', merchant: { descriptor: 'AMAZON RETAIL US-002' } })).toThrow(
      expect.objectContaining({ code: 'INSUFFICIENT_FUNDS', details: { cardId, declineReason: 'INSUFFICIENT_FUNDS' } }) as Error,
    ));

  it('declines descriptor suffix 003 with CARD_PAUSED even on an active card', () =>
    expect(() => screenAuthorization(card, { currency: 'USD', merchant: { descriptor: 'SHOP-003' } })).toThrow(
      expect.objectContaining({ code: 'CARD_PAUSED' }) as Error,
    ));

  it('refuses a currency other than the card’s as bad input, not a decline', () =>
    expect(() => screenAuthorization(card, { currency: 'EUR', merchant })).toThrow(
      expect.objectContaining({ code: 'INVALID_CURRENCY' }) as Error,
    ));
});

describe('AuthorizeCardTransaction', () => {
  const { given } = deciderSpec({ decide: authorizeCardTransaction, ...cardTransactionDecider });

  it('authorizes on the funding source whose hold succeeded, the pull confirmed', () => given([]).when(authorize()).then([authorized()]));

  it('leaves the pull PENDING for 30 s on descriptor suffix 005', () =>
    given([])
      .when(authorize({ merchant: { descriptor: 'HOTEL-005' } }))
      .then([authorized('HOTEL-005', { pullStatus: 'PENDING', pullDueAt: '2026-05-08T14:30:30.000Z' })]));

  it('authorizes and then turns EXCEPTION when the confirmation fails on suffix 006', () =>
    given([])
      .when(authorize({ merchant: { descriptor: 'GAS-006' } }))
      .then([authorized('GAS-006'), { type: 'PullConfirmationFailed', data: { cardTransactionId: id, failedAt: now.toISOString() } }]));

  it('does nothing when the same authorization is retried', () => given([authorized()]).when(authorize()).thenNothingHappened());

  it('refuses the same id with different terms', () =>
    given([authorized()])
      .when(authorize({ amount: 999n }))
      .thenThrows((error) => error.code === 'CONFLICT' && error.status === 409));

  it('refuses a non-positive amount', () =>
    given([])
      .when(authorize({ amount: 0n }))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT'));

  it('is AUTHORIZED with one pull of the whole amount', () => {
    const state = stateAfter([authorized()]);
    expect(state).toMatchObject({ status: 'AUTHORIZED', holdRemaining: 1000n, pulls: [{ amount: 1000n, status: 'CONFIRMED' }] });
  });

  it('is EXCEPTION after suffix 006', () =>
    expect(
      statusAfter([
        authorized('GAS-006'),
        { type: 'PullConfirmationFailed', data: { cardTransactionId: id, failedAt: now.toISOString() } },
      ]),
    ).toBe('EXCEPTION'));
});

describe('ConfirmPendingPull', () => {
  const { given } = deciderSpec({ decide: confirmPendingPull, ...cardTransactionDecider });
  const pending = authorized('HOTEL-005', { pullStatus: 'PENDING', pullDueAt: '2026-05-08T14:30:30.000Z' });
  const confirmAt = (at: Date): ConfirmPendingPull => ({
    type: 'ConfirmPendingPull',
    data: { cardTransactionId: id },
    metadata: { now: at },
  });

  it('does nothing before 30 s have passed', () =>
    given([pending])
      .when(confirmAt(new Date('2026-05-08T14:30:29.999Z')))
      .thenNothingHappened());

  it('confirms the pull once 30 s have passed', () =>
    given([pending])
      .when(confirmAt(new Date('2026-05-08T14:30:30.000Z')))
      .then([{ type: 'PullConfirmed', data: { cardTransactionId: id, confirmedAt: '2026-05-08T14:30:30.000Z' } }]));

  it('does nothing once confirmed', () =>
    given([pending, { type: 'PullConfirmed', data: { cardTransactionId: id, confirmedAt: later.toISOString() } }])
      .when(confirmAt(later))
      .thenNothingHappened());

  it('does nothing for a pull that never waited', () => given([authorized()]).when(confirmAt(later)).thenNothingHappened());
});

describe('ClearCardTransaction', () => {
  const { given } = deciderSpec({ decide: clearCardTransaction, ...cardTransactionDecider });

  it('settles the whole hold: SETTLED', () => {
    given([authorized()])
      .when(clear(1000n))
      .then([posted(1, '1000', '1000', '0')]);
    expect(statusAfter([authorized(), posted(1, '1000', '1000', '0')])).toBe('SETTLED');
  });

  it('settles part of the hold and keeps the rest: PARTIALLY_SETTLED, then SETTLED by the next clearing', () => {
    given([authorized()])
      .when(clear(400n))
      .then([posted(1, '400', '400', '600')]);
    expect(statusAfter([authorized(), posted(1, '400', '400', '600')])).toBe('PARTIALLY_SETTLED');
    given([authorized(), posted(1, '400', '400', '600')])
      .when(clear(600n, undefined, [authorized(), posted(1, '400', '400', '600')]))
      .then([posted(2, '600', '600', '0')]);
  });

  it('pulls what a clearing exceeds the hold by, after the fact: a second pull, SETTLED', () => {
    const pull: CardTransactionEvent = {
      type: 'PostHocPullPosted',
      data: { cardTransactionId: id, clearing: 1, amount: '500', status: 'CONFIRMED', postedAt: later.toISOString() },
    };
    given([authorized()])
      .when(clear(1500n, { status: 'CONFIRMED' }))
      .then([posted(1, '1500', '1000', '0'), pull]);
    expect(stateAfter([authorized(), posted(1, '1500', '1000', '0'), pull])).toMatchObject({
      status: 'SETTLED',
      settlements: [1500n],
      pulls: [{ amount: 1000n }, { amount: 500n, status: 'CONFIRMED' }],
    });
  });

  it('turns EXCEPTION when the post-hoc pull fails: the network settled, the funding source did not pay', () => {
    const pull: CardTransactionEvent = {
      type: 'PostHocPullPosted',
      data: {
        cardTransactionId: id,
        clearing: 1,
        amount: '500',
        status: 'FAILED',
        reason: 'INSUFFICIENT_FUNDS',
        postedAt: later.toISOString(),
      },
    };
    given([authorized()])
      .when(clear(1500n, { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS' }))
      .then([posted(1, '1500', '1000', '0'), pull]);
    expect(statusAfter([authorized(), posted(1, '1500', '1000', '0'), pull])).toBe('EXCEPTION');
  });

  it('insists on the post-hoc pull’s outcome when the clearing exceeds the hold', () =>
    given([authorized()])
      .when(clear(1500n))
      .thenThrows((error) => error instanceof RangeError));

  it('expires the authorization on a clearing of 0, releasing the whole hold', () => {
    const expired: CardTransactionEvent = {
      type: 'AuthorizationExpired',
      data: { cardTransactionId: id, clearing: 1, releasedAmount: '1000', expiredAt: later.toISOString() },
    };
    given([authorized()]).when(clear(0n)).then([expired]);
    expect(stateAfter([authorized(), expired])).toMatchObject({ status: 'SETTLED', holdRemaining: 0n, settlements: [] });
  });

  it('closes a partially settled transaction on a clearing of 0, releasing what is left', () =>
    given([authorized(), posted(1, '400', '400', '600')])
      .when(clear(0n, undefined, [authorized(), posted(1, '400', '400', '600')]))
      .then([
        {
          type: 'AuthorizationExpired',
          data: { cardTransactionId: id, clearing: 2, releasedAmount: '600', expiredAt: later.toISOString() },
        },
      ]));

  it.each([
    ['SETTLED', [posted(1, '1000', '1000', '0')]],
    [
      'EXCEPTION',
      [{ type: 'PullConfirmationFailed', data: { cardTransactionId: id, failedAt: now.toISOString() } } as CardTransactionEvent],
    ],
  ])('refuses to clear a %s transaction', (_status, events) =>
    given([authorized(), ...events])
      .when(clear(10n))
      .thenThrows((error) => error.code === 'INVALID_STATE_TRANSITION' && error.status === 409),
  );

  it('answers another platform as if the transaction did not exist', () =>
    given([authorized()])
      .when({ ...clear(10n), data: { ...clear(10n).data, platformId: 'Platform:other' } })
      .thenThrows((error) => error.code === 'TRANSACTION_NOT_FOUND' && error.status === 404));

  it('answers another card’s transaction as not found', () =>
    given([authorized()])
      .when({ ...clear(10n), data: { ...clear(10n).data, cardId: 'Card:other' } })
      .thenThrows((error) => error.code === 'TRANSACTION_NOT_FOUND'));

  it('answers an unknown transaction as not found', () =>
    given([])
      .when(clear(10n))
      .thenThrows((error) => error.code === 'TRANSACTION_NOT_FOUND'));

  it('refuses a clearing that an identical request recorded first: one ClearingPosted, as the ledger settled once (409)', () =>
    given([authorized(), posted(1, '400', '400', '600')])
      .when(clear(400n, undefined, [authorized()]))
      .thenThrows((error) => error.code === 'CONFLICT' && error.status === 409 && error.details?.['clearing'] === 1));

  it('refuses a plan that differs from what the state gives, so the events never say other than the ledger did (409)', () => {
    const command = clear(400n);
    given([authorized()])
      .when({ ...command, data: { ...command.data, plan: { ...command.data.plan, fromHold: 300n } } })
      .thenThrows((error) => error.code === 'CONFLICT' && error.status === 409);
  });
});

describe('ReturnCardTransaction', () => {
  const { given } = deciderSpec({ decide: returnCardTransaction, ...cardTransactionDecider });
  const settled = [authorized(), posted(1, '1000', '1000', '0')];

  it('refunds part: stays SETTLED with the refund counted', () => {
    given(settled)
      .when(giveBack(300n))
      .then([refunded(1, '300')]);
    expect(stateAfter([...settled, refunded(1, '300')])).toMatchObject({
      status: 'SETTLED',
      refunds: [{ refundId: 'CardRefund:r1', amount: 300n }],
    });
  });

  it('refunds the rest: REFUNDED, each return its own child refund', () => {
    given([...settled, refunded(1, '300')])
      .when(giveBack(700n, 2))
      .then([refunded(2, '700')]);
    expect(stateAfter([...settled, refunded(1, '300'), refunded(2, '700')])).toMatchObject({
      status: 'REFUNDED',
      refunds: [{ amount: 300n }, { amount: 700n }],
    });
  });

  it('refunds in full at once: REFUNDED', () => expect(statusAfter([...settled, refunded(1, '1000')])).toBe('REFUNDED'));

  it('a full return on a PARTIALLY_SETTLED transaction keeps the rest of the hold open; releasing it then makes it REFUNDED', () => {
    // Authorize 1000, clear 400 (600 still held), return the 400: the 600 must stay clearable or releasable.
    const partly = [authorized(), posted(1, '400', '400', '600'), refunded(1, '400')];
    expect(stateAfter(partly)).toMatchObject({ status: 'PARTIALLY_SETTLED', holdRemaining: 600n });
    const expired: CardTransactionEvent = {
      type: 'AuthorizationExpired',
      data: { cardTransactionId: id, clearing: 2, releasedAmount: '600', expiredAt: later.toISOString() },
    };
    expect(stateAfter([...partly, expired])).toMatchObject({ status: 'REFUNDED', holdRemaining: 0n });
  });

  it('refuses more than the net settled amount, naming it', () =>
    given([...settled, refunded(1, '300')])
      .when(giveBack(701n, 2))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT' && error.details?.['netSettled'] === '700'));

  it('refunds against what a partially settled transaction has cleared so far', () =>
    given([authorized(), posted(1, '400', '400', '600')])
      .when(giveBack(400n))
      .then([refunded(1, '400')]));

  it('refuses a transaction with nothing settled', () =>
    given([authorized()])
      .when(giveBack(1n))
      .thenThrows((error) => error.code === 'INVALID_STATE_TRANSITION'));

  it('refuses a return that an identical request recorded first: one CardRefunded, as the ledger credited once (409)', () =>
    given([...settled, refunded(1, '300')])
      .when(giveBack(300n, 1))
      .thenThrows((error) => error.code === 'CONFLICT' && error.status === 409 && error.details?.['return'] === 1));

  it('refuses a REFUNDED transaction', () =>
    given([...settled, refunded(1, '1000')])
      .when(giveBack(1n, 2))
      .thenThrows((error) => error.code === 'INVALID_STATE_TRANSITION'));
});
