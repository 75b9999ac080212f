import type { CardEvent, CardView } from './card';
import type { FundingSourceFacts } from './funding-sources';
import type { IssueCard } from './issue-card';
import type { UpdateCard } from './update-card';

export const platformId = 'Platform:01950000-0000-7000-8000-000000000001';
export const cardholderId = 'Customer:01950000-0000-7000-8000-000000000042';
export const accountA = 'InternalAccount:01950000-0000-7000-8000-0000000000a1';
export const accountB = 'InternalAccount:01950000-0000-7000-8000-0000000000b1';
export const cardId = 'Card:01950000-0000-7000-8000-0000000000c1';
export const issuedAt = '2026-03-01T10:00:00.000Z';
export const later = '2026-03-01T10:05:00.000Z';
export const eligibleCurrencies = ['USD', 'USDB'];

export const source = (accountId: string, overrides: Partial<FundingSourceFacts> = {}): FundingSourceFacts => ({
  accountId,
  found: true,
  customerId: cardholderId,
  status: 'ACTIVE',
  currency: 'USD',
  ...overrides,
});

export const issued = { issuerRef: 'sandbox_card_0000000000c1', brand: 'VISA' as const, last4: '4042', expMonth: 3, expYear: 2029 };

export const issueCommand = (data: Partial<IssueCard['data']> = {}): IssueCard => ({
  type: 'IssueCard',
  data: {
    cardId,
    platformId,
    cardholderId,
    cardholderKycStatus: 'APPROVED',
    requestedPlatformCardId: 'card-7',
    platformCardId: 'card-7',
    form: 'VIRTUAL',
    fundingSources: [accountA],
    sources: [source(accountA)],
    issued,
    ...data,
  },
  metadata: { now: new Date(issuedAt), eligibleCurrencies },
});

export const card = (overrides: Partial<CardView> = {}): CardView => ({
  id: cardId,
  platformId,
  cardholderId,
  platformCardId: 'card-7',
  state: 'PENDING_ISSUE',
  stateReason: null,
  form: 'VIRTUAL',
  ...issued,
  fundingSources: [accountA],
  currency: 'USD',
  createdAt: issuedAt,
  updatedAt: issuedAt,
  ...overrides,
});

export const cardIssued = (checkAt: string | null = issuedAt): CardEvent =>
  checkAt === issuedAt
    ? { type: 'CardIssued', data: { card: card(), provisioningCheckAt: issuedAt } }
    : { type: 'CardProvisioningDeferred', data: { card: card(), provisioningCheckAt: checkAt } };
export const cardActivated = (): CardEvent => ({ type: 'CardActivated', data: { card: card({ state: 'ACTIVE', updatedAt: issuedAt }) } });
export const cardFrozen = (): CardEvent => ({ type: 'CardFrozen', data: { card: card({ state: 'FROZEN', updatedAt: issuedAt }) } });
export const cardClosed = (): CardEvent => ({
  type: 'CardClosed',
  data: {
    card: card({
      state: 'CLOSED',
      stateReason: 'CLOSED_BY_PLATFORM',
      fundingSources: [],
      detachedFundingSources: [accountA],
      updatedAt: issuedAt,
    }),
  },
});
export const cardRejected = (): CardEvent => ({
  type: 'CardIssueRejected',
  data: { card: card({ state: 'CLOSED', stateReason: 'ISSUER_REJECTED' }) },
});

export const updateCommand = (data: Partial<UpdateCard['data']> = {}): UpdateCard => ({
  type: 'UpdateCard',
  data: { cardId, platformId, sources: [], ...data },
  metadata: { now: new Date(later), eligibleCurrencies },
});
