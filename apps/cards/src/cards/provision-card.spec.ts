// Pins down how the issuer's answer moves a PENDING_ISSUE card: ACTIVE, CLOSED with
// ISSUER_REJECTED, or a later check; nothing before the check is due, after provisioning ended,
// or when the answer repeats the plan.
import { deciderSpec } from '@corridor/testing';
import { type Card, type CardEvent, cardDecider } from './card';
import { card, cardActivated, cardFrozen, cardIssued, cardRejected, issuedAt, later } from './card.fixtures';
import type { ProvisioningStatus } from './card-issuer';
import { type ProvisionCard, provisionCard } from './provision-card';

const spec = deciderSpec<Card, ProvisionCard, CardEvent>({ decide: provisionCard, ...cardDecider });
const at = (iso: string, issuer: ProvisioningStatus): ProvisionCard => ({
  type: 'ProvisionCard',
  data: { cardId: card().id, issuer },
  metadata: { now: new Date(iso) },
});
const in30s = '2026-03-01T10:00:30.000Z';

describe('ProvisionCard', () => {
  it('activates a card the issuer provisioned', () =>
    spec
      .given([cardIssued()])
      .when(at(later, { status: 'ACTIVE' }))
      .then([{ type: 'CardActivated', data: { card: card({ state: 'ACTIVE', updatedAt: later }) } }]));

  it('closes a card the issuer rejected, ISSUER_REJECTED', () =>
    spec
      .given([cardIssued()])
      .when(at(later, { status: 'REJECTED' }))
      .then([{ type: 'CardIssueRejected', data: { card: card({ state: 'CLOSED', stateReason: 'ISSUER_REJECTED', updatedAt: later }) } }]));

  it('defers the check to when the issuer says (005: 30 s)', () =>
    spec
      .given([cardIssued()])
      .when(at(issuedAt, { status: 'PENDING', checkAgainAt: new Date(in30s) }))
      .then([{ type: 'CardProvisioningDeferred', data: { card: card(), provisioningCheckAt: in30s } }]));

  it('stops checking when the issuer will not finish by itself (001)', () =>
    spec
      .given([cardIssued()])
      .when(at(issuedAt, { status: 'PENDING', checkAgainAt: null }))
      .then([{ type: 'CardProvisioningDeferred', data: { card: card(), provisioningCheckAt: null } }]));

  it('does nothing before the check is due', () =>
    spec
      .given([cardIssued(), cardIssued(in30s)])
      .when(at('2026-03-01T10:00:29.999Z', { status: 'ACTIVE' }))
      .thenNothingHappened());

  it('activates at the due instant', () =>
    spec
      .given([cardIssued(), cardIssued(in30s)])
      .when(at(in30s, { status: 'ACTIVE' }))
      .then([{ type: 'CardActivated', data: { card: card({ state: 'ACTIVE', updatedAt: in30s }) } }]));

  it('does nothing for a card no longer checked, already provisioned, or unknown', () => {
    spec
      .given([cardIssued(), cardIssued(null)])
      .when(at(later, { status: 'ACTIVE' }))
      .thenNothingHappened();
    spec
      .given([cardIssued(), cardActivated()])
      .when(at(later, { status: 'ACTIVE' }))
      .thenNothingHappened();
    spec
      .given([cardIssued(), cardActivated(), cardFrozen()])
      .when(at(later, { status: 'REJECTED' }))
      .thenNothingHappened();
    spec
      .given([cardIssued(), cardRejected()])
      .when(at(later, { status: 'ACTIVE' }))
      .thenNothingHappened();
    spec
      .given([])
      .when(at(later, { status: 'ACTIVE' }))
      .thenNothingHappened();
  });

  it('does nothing when the issuer repeats the same plan', () =>
    spec
      .given([cardIssued(), cardIssued(in30s)])
      .when(at(in30s, { status: 'PENDING', checkAgainAt: new Date(in30s) }))
      .thenNothingHappened());
});
