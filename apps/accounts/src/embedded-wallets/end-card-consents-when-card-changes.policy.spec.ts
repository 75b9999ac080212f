// Pins down which card events end a wallet's consent to fund the card, and for which wallets.
import { cardConsentEndOf } from './end-card-consents-when-card-changes.policy';

const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000aa';
const cardId = 'Card:0196f1a0-0000-7000-8000-0000000000c1';
const wallet = 'InternalAccount:0196f1a0-0000-7000-8000-000000000001';
const fiat = 'InternalAccount:0196f1a0-0000-7000-8000-000000000002';
const occurredAt = '2026-03-01T10:00:00.000Z';
const event = (type: string, fundingSources: string[]) => ({
  type,
  platformId,
  occurredAt,
  data: { card: { id: cardId, fundingSources } },
});

describe('cardConsentEndOf', () => {
  it('given a closed card, then every wallet’s consent ends as of the close', () =>
    expect(cardConsentEndOf(event('CardClosed', []))).toEqual({ platformId, cardId, keepAccountIds: [], at: new Date(occurredAt) }));

  it('given a card rejected at issue, then every wallet’s consent ends', () =>
    expect(cardConsentEndOf(event('CardIssueRejected', [wallet]))?.keepAccountIds).toEqual([]));

  it('given sources replaced, then the wallets still listed keep theirs', () =>
    expect(cardConsentEndOf(event('CardFundingSourcesReplaced', [fiat, wallet]))?.keepAccountIds).toEqual([fiat, wallet]));

  it.each(['CardIssued', 'CardActivated', 'CardFrozen', 'CardUnfrozen'])('given %s, then nothing ends', (type) =>
    expect(cardConsentEndOf(event(type, []))).toBeNull(),
  );

  it.each([
    ['no card', { type: 'CardClosed', platformId, occurredAt, data: {} }],
    ['no platform', { type: 'CardClosed', occurredAt, data: { card: { id: cardId, fundingSources: [] } } }],
    ['no time', { type: 'CardClosed', platformId, data: { card: { id: cardId, fundingSources: [] } } }],
    ['not an object', 'CardClosed'],
  ])('given an event with %s, then nothing (it cannot name what to end)', (_name, payload) => expect(cardConsentEndOf(payload)).toBeNull());
});
