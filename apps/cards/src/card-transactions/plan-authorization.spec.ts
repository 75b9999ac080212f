// The plan of a card authorization: given the card (its state, currency and ordered funding
// sources) and the request, when the simulator authorizes, then the holds to ask for in order, or
// the decline, before any money is asked for.
import { DomainError } from '@corridor/contracts';
import { cannotPay, nextHold, planAuthorization } from './plan-authorization';

const cardId = 'Card:0195a000-0000-7000-8000-000000000001';
const cardTransactionId = 'CardTransaction:0195a000-0000-7000-8000-000000000002';
const wallet = 'InternalAccount:0195a000-0000-7000-8000-00000000000a';
const checking = 'InternalAccount:0195a000-0000-7000-8000-00000000000b';
const card = {
  id: cardId,
  platformId: 'Platform:0195a000-0000-7000-8000-000000000003',
  state: 'ACTIVE',
  currency: 'USD',
  fundingSources: [wallet, checking],
};
const request = { cardTransactionId, amount: 2_500n, currency: 'USD', merchant: { descriptor: 'COFFEE SHOP' } };
const refusal = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('planAuthorization', () => {
  it("asks the card's funding sources in the card's order for one hold, named by the transaction", () => {
    const plan = planAuthorization(card, request);
    const hold = {
      operationId: `${cardTransactionId}:authorization:hold`,
      holdId: cardTransactionId,
      amount: '2500',
      currency: 'USD',
      cause: { kind: 'CARD_SETTLEMENT', id: cardTransactionId },
      cardId,
    };
    expect([nextHold(plan, 0), nextHold(plan, 1)]).toEqual([
      { ...hold, accountId: wallet },
      { ...hold, accountId: checking },
    ]);
  });

  it('declines INSUFFICIENT_FUNDS once every source refused, and a card without sources at once, before asking the ledger', () => {
    expect(refusal(() => nextHold(planAuthorization(card, request), 2))).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
      status: 400,
      details: { cardId, declineReason: 'INSUFFICIENT_FUNDS' },
    });
    expect(refusal(() => nextHold(planAuthorization({ ...card, fundingSources: [] }, request), 0)).code).toBe('INSUFFICIENT_FUNDS');
  });

  it('screens first: a paused card, another currency or a sandbox decline asks no source', () => {
    expect(refusal(() => planAuthorization({ ...card, state: 'FROZEN' }, request)).code).toBe('CARD_PAUSED');
    expect(refusal(() => planAuthorization(card, { ...request, currency: 'EUR' })).code).toBe('INVALID_CURRENCY');
    expect(refusal(() => planAuthorization(card, { ...request, merchant: { descriptor: 'SHOP-002' } })).code).toBe('INSUFFICIENT_FUNDS');
  });
});

describe('cannotPay: which ledger refusals pass on to the next funding source', () => {
  it.each(['INSUFFICIENT_FUNDS', 'ACCOUNT_FROZEN', 'ACCOUNT_NOT_ACTIVE', 'ACCOUNT_CLOSED', 'WALLET_CONSENT_REQUIRED'])(
    '%s passes on',
    (code) => expect(cannotPay(new DomainError(code, 'validation', code))).toBe(true),
  );

  it('any other refusal or failure is surfaced, not passed on', () => {
    expect(cannotPay(new DomainError('REFERENCE_NOT_FOUND', 'not_found', 'gone'))).toBe(false);
    expect(cannotPay(new Error('timeout'))).toBe(false);
  });
});
