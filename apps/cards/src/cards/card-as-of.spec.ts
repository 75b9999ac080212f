// GET /cards/{id}?asOf=: the card's stream folded by the cards view up to that time.
import { recordedEvents } from '@corridor/testing';
import { cardAsOf } from './card-as-of';
import { cardActivated, cardClosed, cardId, cardIssued, issuedAt, platformId } from './card.fixtures';

const stream = recordedEvents(
  cardId,
  platformId,
  [cardIssued(), cardActivated(), { type: 'SomethingElseOnTheStream', data: { note: 'not a card event' } }, cardClosed()],
  ['2026-03-01T10:00:00.000Z', '2026-03-01T10:01:00.000Z', '2026-03-01T10:02:00.000Z', '2026-03-01T10:03:00.000Z'],
);
const at = (iso: string, platform = platformId) => cardAsOf(stream, new Date(iso), platform);

describe('cardAsOf', () => {
  it('given a card issued, activated and closed, answers the state it had at each time, the bound included', () => {
    expect(at(issuedAt)).toMatchObject({ id: cardId, state: 'PENDING_ISSUE' });
    expect(at('2026-03-01T10:01:00.000Z')?.state).toBe('ACTIVE');
    expect(at('2026-03-01T10:02:59.999Z')).toMatchObject({ state: 'ACTIVE', fundingSources: expect.arrayContaining([expect.anything()]) });
    expect(at('2026-03-01T10:03:00.000Z')).toMatchObject({ state: 'CLOSED', stateReason: 'CLOSED_BY_PLATFORM', fundingSources: [] });
  });

  it('answers nothing before the card was issued, or for another platform', () => {
    expect(at('2026-03-01T09:59:59.999Z')).toBeNull();
    expect(at('2026-03-01T10:01:00.000Z', 'Platform:01950000-0000-7000-8000-0000000000ee')).toBeNull();
  });
});
