// Pins down the card state machine of PATCH /cards/{id}: ACTIVE ⇄ FROZEN, ACTIVE | FROZEN → CLOSED
// (CLOSED_BY_PLATFORM, sources detached), every other move 409 INVALID_STATE_TRANSITION, a closed
// card's 409s (CARD_ALREADY_CLOSED, CARD_NOT_MUTABLE), the full replacement of funding sources,
// the 400s of an empty or contradictory request, and same-state requests as no-ops.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { type Card, type CardEvent, cardDecider } from './card';
import {
  accountA,
  accountB,
  card,
  cardActivated,
  cardClosed,
  cardFrozen,
  cardIssued,
  cardRejected,
  later,
  source,
  updateCommand,
} from './card.fixtures';
import { type UpdateCard, updateCard } from './update-card';

const spec = deciderSpec<Card, UpdateCard, CardEvent>({ decide: updateCard, ...cardDecider });
const refusedWith = (code: string, reason?: string) => (error: DomainError) =>
  error instanceof DomainError && error.code === code && (reason === undefined || error.details?.['reason'] === reason);
const active = [cardIssued(), cardActivated()];
const frozen = [...active, cardFrozen()];

describe('UpdateCard: state', () => {
  it('freezes an ACTIVE card', () =>
    spec
      .given(active)
      .when(updateCommand({ state: 'FROZEN' }))
      .then([{ type: 'CardFrozen', data: { card: card({ state: 'FROZEN', updatedAt: later }) } }]));

  it('unfreezes a FROZEN card', () =>
    spec
      .given(frozen)
      .when(updateCommand({ state: 'ACTIVE' }))
      .then([{ type: 'CardUnfrozen', data: { card: card({ state: 'ACTIVE', updatedAt: later }) } }]));

  it.each([
    ['ACTIVE', active],
    ['FROZEN', frozen],
  ])('closes a%s card: CLOSED_BY_PLATFORM, sources detached', (_label, given) =>
    spec
      .given(given)
      .when(updateCommand({ state: 'CLOSED' }))
      .then([
        {
          type: 'CardClosed',
          data: {
            card: card({
              state: 'CLOSED',
              stateReason: 'CLOSED_BY_PLATFORM',
              fundingSources: [],
              detachedFundingSources: [accountA],
              updatedAt: later,
            }),
          },
        },
      ]),
  );

  it.each(['ACTIVE', 'FROZEN', 'CLOSED'] as const)('refuses %s on a PENDING_ISSUE card (INVALID_STATE_TRANSITION)', (state) =>
    spec.given([cardIssued()]).when(updateCommand({ state })).thenThrows(refusedWith('INVALID_STATE_TRANSITION')),
  );

  it('does nothing when asked for the state the card is in', () => {
    spec
      .given(active)
      .when(updateCommand({ state: 'ACTIVE' }))
      .thenNothingHappened();
    spec
      .given(frozen)
      .when(updateCommand({ state: 'FROZEN' }))
      .thenNothingHappened();
  });

  it.each([
    ['closed by the platform', cardClosed()],
    ['rejected by the issuer', cardRejected()],
  ])('refuses closing a card %s again (CARD_ALREADY_CLOSED)', (_label, closed) =>
    spec
      .given([cardIssued(), closed])
      .when(updateCommand({ state: 'CLOSED' }))
      .thenThrows(refusedWith('CARD_ALREADY_CLOSED')),
  );

  it.each([
    ['ACTIVE', { state: 'ACTIVE' as const }],
    ['FROZEN', { state: 'FROZEN' as const }],
    ['new sources', { fundingSources: [accountB], sources: [source(accountB)] }],
  ])('refuses any other change to a closed card: %s (CARD_NOT_MUTABLE)', (_label, change) =>
    spec
      .given([...active, cardClosed()])
      .when(updateCommand(change))
      .thenThrows(refusedWith('CARD_NOT_MUTABLE')),
  );

  it('refuses a card of another platform as not found', () =>
    spec
      .given(active)
      .when(updateCommand({ platformId: 'Platform:other', state: 'FROZEN' }))
      .thenThrows(refusedWith('REFERENCE_NOT_FOUND')));

  it('refuses an unknown card as not found', () =>
    spec
      .given([])
      .when(updateCommand({ state: 'FROZEN' }))
      .thenThrows(refusedWith('REFERENCE_NOT_FOUND')));
});

describe('UpdateCard: funding sources', () => {
  const replaced = (sources: string[], previous = [accountA], base = card({ state: 'ACTIVE' })) => ({
    type: 'CardFundingSourcesReplaced' as const,
    data: { card: { ...base, fundingSources: sources, updatedAt: later }, previous },
  });

  it('replaces the sources in the order given', () =>
    spec
      .given(active)
      .when(updateCommand({ fundingSources: [accountB, accountA], sources: [source(accountB), source(accountA)] }))
      .then([replaced([accountB, accountA])]));

  it('replaces the sources of a PENDING_ISSUE card', () =>
    spec
      .given([cardIssued()])
      .when(updateCommand({ fundingSources: [accountB], sources: [source(accountB)] }))
      .then([replaced([accountB], [accountA], card())]));

  it('freezes and replaces in one request, the state first', () =>
    spec
      .given(active)
      .when(updateCommand({ state: 'FROZEN', fundingSources: [accountB], sources: [source(accountB)] }))
      .then([
        { type: 'CardFrozen', data: { card: card({ state: 'FROZEN', updatedAt: later }) } },
        replaced([accountB], [accountA], card({ state: 'FROZEN' })),
      ]));

  it('does nothing when the sources are the same, in the same order', () =>
    spec
      .given(active)
      .when(updateCommand({ fundingSources: [accountA], sources: [source(accountA)] }))
      .thenNothingHappened());

  it('refuses a source in another currency than the card’s', () =>
    spec
      .given(active)
      .when(updateCommand({ fundingSources: [accountB], sources: [source(accountB, { currency: 'USDB' })] }))
      .thenThrows(refusedWith('FUNDING_SOURCE_INELIGIBLE', 'CURRENCY_MISMATCH')));

  it('refuses an ineligible source with the same rules as issuing', () =>
    spec
      .given(active)
      .when(updateCommand({ fundingSources: [accountB], sources: [source(accountB, { status: 'FROZEN' })] }))
      .thenThrows(refusedWith('FUNDING_SOURCE_INELIGIBLE', 'ACCOUNT_NOT_ACTIVE')));

  it('refuses an empty list', () =>
    spec
      .given(active)
      .when(updateCommand({ fundingSources: [] }))
      .thenThrows(refusedWith('INVALID_INPUT')));

  it('refuses sources together with state CLOSED', () =>
    spec
      .given(active)
      .when(updateCommand({ state: 'CLOSED', fundingSources: [accountB], sources: [source(accountB)] }))
      .thenThrows((error) => refusedWith('INVALID_INPUT')(error) && error.details?.['field'] === 'fundingSources'));

  it('refuses a request that changes nothing', () => spec.given(active).when(updateCommand({})).thenThrows(refusedWith('INVALID_INPUT')));
});
