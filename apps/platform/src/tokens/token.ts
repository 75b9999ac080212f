import type { Event, Permission } from '@corridor/contracts';

export type TokenCreated = Event<
  'TokenCreated',
  {
    tokenId: string;
    platformId: string;
    name: string;
    permissions: Permission[];
    clientId: string;
    secretHash: string;
    /** The gateway's fingerprint of the POST that made it, when it came with an Idempotency-Key (decision 0028). */
    requestFingerprint?: string;
    createdAt: string;
  }
>;
export type TokenDeleted = Event<'TokenDeleted', { tokenId: string; platformId: string; deletedAt: string }>;
export type TokenEvent = TokenCreated | TokenDeleted;

export type Token =
  | { status: 'None' }
  | {
      status: 'Active' | 'Deleted';
      tokenId: string;
      platformId: string;
      name: string;
      permissions: Permission[];
      clientId: string;
      requestFingerprint?: string;
    };

export const initialToken = (): Token => ({ status: 'None' });

export const evolveToken = (state: Token, event: TokenEvent): Token => {
  switch (event.type) {
    case 'TokenCreated': {
      const { tokenId, platformId, name, permissions, clientId, requestFingerprint } = event.data;
      return {
        status: 'Active',
        tokenId,
        platformId,
        name,
        permissions,
        clientId,
        ...(requestFingerprint !== undefined ? { requestFingerprint } : {}),
      };
    }
    case 'TokenDeleted':
      return state.status === 'None' ? state : { ...state, status: 'Deleted' };
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

export const tokenDecider = { evolve: evolveToken, initialState: initialToken };
