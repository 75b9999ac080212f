import { type Command, DomainError, type Event } from '@corridor/contracts';

// The cap on a platform's API tokens (decision 0022). Every live token holds a slot in one stream
// per platform, `TokenSlots:<platformId>`; taking a slot appends with an expected version, so two
// racing creates cannot both take the last one. A token is created only after its slot is taken,
// and its slot is freed after it is deleted (or when its creation failed). The stream opens with
// the platform's live tokens from before it existed, so a deployment that predates the cap counts
// them too.

export type TokenSlotsOpened = Event<'TokenSlotsOpened', { platformId: string; tokenIds: string[] }>;
export type TokenSlotTaken = Event<'TokenSlotTaken', { platformId: string; tokenId: string }>;
export type TokenSlotFreed = Event<'TokenSlotFreed', { platformId: string; tokenId: string }>;
export type TokenSlotsEvent = TokenSlotsOpened | TokenSlotTaken | TokenSlotFreed;

export type TokenSlots = { opened: boolean; tokenIds: string[] };

export const tokenSlotsStreamId = (platformId: string): string => `TokenSlots:${platformId}`;

export const tokenSlotsDecider = {
  initialState: (): TokenSlots => ({ opened: false, tokenIds: [] }),
  evolve: (state: TokenSlots, event: TokenSlotsEvent): TokenSlots => {
    switch (event.type) {
      case 'TokenSlotsOpened':
        return { opened: true, tokenIds: [...event.data.tokenIds] };
      case 'TokenSlotTaken':
        return { ...state, tokenIds: [...state.tokenIds, event.data.tokenId] };
      case 'TokenSlotFreed':
        return { ...state, tokenIds: state.tokenIds.filter((tokenId) => tokenId !== event.data.tokenId) };
      default: {
        const unknownEvent: never = event;
        return unknownEvent;
      }
    }
  },
};

/** liveTokenIds: the platform's tokens in the read model, used only to open the stream. */
export type TakeTokenSlot = Command<
  'TakeTokenSlot',
  { platformId: string; tokenId: string; tokensMax: number; liveTokenIds: string[] },
  Record<string, never>
>;

export const takeTokenSlot = (command: TakeTokenSlot, state: TokenSlots): TokenSlotsEvent[] => {
  const { platformId, tokenId, tokensMax, liveTokenIds } = command.data;
  const opening: TokenSlotsEvent[] = state.opened ? [] : [{ type: 'TokenSlotsOpened', data: { platformId, tokenIds: liveTokenIds } }];
  const held = state.opened ? state.tokenIds : liveTokenIds;
  if (held.includes(tokenId)) return opening;
  if (held.length >= tokensMax) {
    throw new DomainError(
      'CONFLICT',
      'conflict',
      `This platform already has ${held.length} API tokens, the most it may have (${tokensMax}). ` +
        'Delete tokens it no longer uses (DELETE /tokens/{tokenId}) before creating another.',
      { tokensMax, liveTokens: held.length },
    );
  }
  return [...opening, { type: 'TokenSlotTaken', data: { platformId, tokenId } }];
};

export const freeTokenSlot = (platformId: string, tokenId: string, state: TokenSlots): TokenSlotsEvent[] =>
  state.tokenIds.includes(tokenId) ? [{ type: 'TokenSlotFreed', data: { platformId, tokenId } }] : [];
