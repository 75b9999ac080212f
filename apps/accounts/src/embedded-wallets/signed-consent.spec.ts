// Pins down what a wallet's owner signs for when a card or a transfer commits wallet money: the
// resource named in the payload (fixed on leg 1 for a new one) and what the ledger may do with it.
import type { WalletFundedChangeData } from '@corridor/contracts';
import { consentPlanOf } from './signed-consent';

const wallet = 'InternalAccount:0196f1a0-0000-7000-8000-000000000001';
const usdb = 'InternalAccount:0196f1a0-0000-7000-8000-000000000002';
const cardId = 'Card:0196f1a0-0000-7000-8000-0000000000c1';
const minted = (type: string) => `${type}:0196f1a0-0000-7000-8000-0000000000ff`;
const change = (data: Partial<WalletFundedChangeData>): WalletFundedChangeData => ({
  accountIds: [wallet],
  bindAccountIds: [wallet],
  operation: 'UPDATE_CARD',
  targetId: cardId,
  body: {},
  ...data,
});

describe('consentPlanOf', () => {
  it('given a new card the wallet funds, then the owner signs for a card id fixed now and consents to fund that card', () =>
    expect(consentPlanOf(change({ operation: 'CREATE_CARD', targetId: 'Customer:1' }), wallet, minted)).toEqual({
      resourceId: minted('Card'),
      answersResourceId: true,
      activity: {
        type: 'ACTIVITY_TYPE_UPDATE_POLICY',
        parameters: { userId: wallet, operation: 'CREATE_CARD', resourceId: minted('Card') },
      },
      grant: { kind: 'CARD' },
    }));

  it('given a card that keeps the wallet, then the owner consents to fund that card', () =>
    expect(consentPlanOf(change({}), wallet, minted)).toMatchObject({
      resourceId: cardId,
      answersResourceId: false,
      grant: { kind: 'CARD' },
    }));

  it('given a change that leaves the wallet off the card, then the owner signs for the change and consents to nothing more', () =>
    expect(consentPlanOf(change({ bindAccountIds: [usdb] }), wallet, minted).grant).toBeNull());

  it('given a transfer out of the wallet, then the owner signs for its id, destination and amount, and consents to its one hold', () =>
    expect(
      consentPlanOf(
        change({
          operation: 'TRANSFER_OUT',
          targetId: wallet,
          bindAccountIds: [],
          body: { destination: { accountId: 'ExternalAccount:1' }, amount: '2500' },
        }),
        wallet,
        minted,
      ),
    ).toEqual({
      resourceId: minted('Transaction'),
      answersResourceId: true,
      activity: {
        type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
        parameters: {
          userId: wallet,
          operation: 'TRANSFER_OUT',
          resourceId: minted('Transaction'),
          destinationAccountId: 'ExternalAccount:1',
          amount: '2500',
        },
      },
      grant: { kind: 'TRANSACTION', amount: '2500' },
    }));

  it.each([
    ['no amount (the whole balance)', {}],
    ['a zero amount', { amount: '0' }],
    ['a fraction', { amount: '1.5' }],
  ])('given a transfer out of the wallet with %s, then 400 naming amount: the owner signs for an amount', (_name, body) =>
    expect(() => consentPlanOf(change({ operation: 'TRANSFER_OUT', bindAccountIds: [], body }), wallet, minted)).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT', details: { field: 'amount' } }),
    ),
  );
});
