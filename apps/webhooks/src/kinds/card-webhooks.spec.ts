// Pins down which card events become CARD.STATE_CHANGE or CARD.FUNDING_SOURCE_CHANGE webhooks,
// each with the Card the event carries, and that the issue and other services' events become none.
import { createConformance } from '@corridor/testing';
import type { IntegrationEventEnvelope } from '../webhook-kind';
import { kind as fundingSourceChange } from './card-funding-source-change';
import { kind as stateChange } from './card-state-change';

const card = {
  id: 'Card:019542f5-b3e7-1d02-0000-000000000010',
  cardholderId: 'Customer:019542f5-b3e7-1d02-0000-000000000001',
  platformCardId: 'card-001',
  state: 'ACTIVE',
  stateReason: null,
  brand: 'VISA',
  form: 'VIRTUAL',
  last4: '4001',
  expMonth: 3,
  expYear: 2029,
  fundingSources: ['InternalAccount:019542f5-b3e7-1d02-0000-000000000002'],
  currency: 'USD',
  issuerRef: 'sandbox_card_000000000010',
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:01.000Z',
};

const event = (overrides: Partial<IntegrationEventEnvelope>): IntegrationEventEnvelope => ({
  service: 'cards',
  aggregate: 'Card',
  eventId: '0196f1a0-0000-7000-8000-000000000001',
  type: 'CardActivated',
  streamId: card.id,
  streamPosition: 2,
  occurredAt: '2026-03-01T10:00:01.000Z',
  platformId: 'Platform:p',
  data: { card },
  ...overrides,
});

describe('card webhooks', () => {
  it.each(['CardActivated', 'CardIssueRejected', 'CardFrozen', 'CardUnfrozen', 'CardClosed'])(
    'plans CARD.STATE_CHANGE for %s with the card',
    (type) => {
      expect(stateChange.plan(event({ type }))).toEqual({ type: 'CARD.STATE_CHANGE', resourceId: card.id, render: { inline: card } });
      expect(fundingSourceChange.plan(event({ type }))).toBeNull();
    },
  );

  it('plans CARD.FUNDING_SOURCE_CHANGE for replaced sources', () => {
    expect(fundingSourceChange.plan(event({ type: 'CardFundingSourcesReplaced' }))).toEqual({
      type: 'CARD.FUNDING_SOURCE_CHANGE',
      resourceId: card.id,
      render: { inline: card },
    });
    expect(stateChange.plan(event({ type: 'CardFundingSourcesReplaced' }))).toBeNull();
  });

  it('plans nothing for the issue itself or for other services', () => {
    expect(stateChange.plan(event({ type: 'CardIssued' }))).toBeNull();
    expect(fundingSourceChange.plan(event({ type: 'CardIssued' }))).toBeNull();
    expect(stateChange.plan(event({ service: 'payments' }))).toBeNull();
  });

  it('sends payloads the reference webhook schemas accept', () => {
    const conformance = createConformance();
    const webhook = (type: string, data: Record<string, unknown> = card) => ({
      id: 'Webhook:019542f5-b3e7-1d02-0000-000000000020',
      type,
      timestamp: '2026-03-01T10:00:01Z',
      data,
    });
    expect(() => conformance.checkWebhook(webhook('CARD.STATE_CHANGE'))).not.toThrow();
    expect(() =>
      conformance.checkWebhook(
        webhook('CARD.STATE_CHANGE', { ...card, state: 'CLOSED', stateReason: 'CLOSED_BY_PLATFORM', fundingSources: [] }),
      ),
    ).not.toThrow();
    expect(() => conformance.checkWebhook(webhook('CARD.FUNDING_SOURCE_CHANGE'))).not.toThrow();
  });
});
