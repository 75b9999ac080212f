// Given a platform's token slots, when a token is created or deleted, then a slot is taken or
// freed — and a platform at its cap is refused with what to do about it.
import { deciderSpec } from '@corridor/testing';
import { freeTokenSlot, type TakeTokenSlot, takeTokenSlot, type TokenSlotsEvent, tokenSlotsDecider } from './token-slots';

const platformId = 'Platform:p';
const take = (tokenId: string, liveTokenIds: string[] = [], tokensMax = 2): TakeTokenSlot => ({
  type: 'TakeTokenSlot',
  data: { platformId, tokenId, tokensMax, liveTokenIds },
  metadata: {},
});
const opened = (tokenIds: string[]): TokenSlotsEvent => ({ type: 'TokenSlotsOpened', data: { platformId, tokenIds } });
const taken = (tokenId: string): TokenSlotsEvent => ({ type: 'TokenSlotTaken', data: { platformId, tokenId } });
const freed = (tokenId: string): TokenSlotsEvent => ({ type: 'TokenSlotFreed', data: { platformId, tokenId } });

describe('takeTokenSlot', () => {
  const { given } = deciderSpec({ decide: takeTokenSlot, ...tokenSlotsDecider });

  it('opens the stream with the tokens that already exist, then takes a slot', () =>
    given([])
      .when(take('Token:c', ['Token:a']))
      .then([opened(['Token:a']), taken('Token:c')]));

  it('takes a free slot of an open stream, ignoring the read model', () =>
    given([opened([]), taken('Token:a')])
      .when(take('Token:b', ['Token:x', 'Token:y']))
      .then([taken('Token:b')]));

  it('refuses a platform at its cap with 409 and what to do', () =>
    given([opened(['Token:a']), taken('Token:b')])
      .when(take('Token:c'))
      .thenThrows((error) => error.status === 409 && /Delete tokens/.test(error.message) && error.details?.['tokensMax'] === 2));

  it('refuses at the cap counted from the tokens that predate the stream', () =>
    given([])
      .when(take('Token:c', ['Token:a', 'Token:b']))
      .thenThrows((error) => error.status === 409));

  it('has room again after a slot was freed', () =>
    given([opened(['Token:a', 'Token:b']), freed('Token:a')])
      .when(take('Token:c'))
      .then([taken('Token:c')]));

  it('does nothing for a token that already holds a slot (a retried create)', () =>
    given([opened([]), taken('Token:a')])
      .when(take('Token:a'))
      .thenNothingHappened());
});

describe('freeTokenSlot', () => {
  const state = (events: TokenSlotsEvent[]) => events.reduce(tokenSlotsDecider.evolve, tokenSlotsDecider.initialState());
  it('frees the slot a token holds, once', () => {
    expect(freeTokenSlot(platformId, 'Token:a', state([opened(['Token:a'])]))).toEqual([freed('Token:a')]);
    expect(freeTokenSlot(platformId, 'Token:a', state([opened(['Token:a']), freed('Token:a')]))).toEqual([]);
  });
});
