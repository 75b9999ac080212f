import { type Command, DomainError } from '@corridor/contracts';
import type { Token, TokenEvent } from './token';

export type DeleteToken = Command<'DeleteToken', { tokenId: string; platformId: string }, { now: Date }>;

export const deleteToken = (command: DeleteToken, token: Token): TokenEvent[] => {
  const { tokenId, platformId } = command.data;
  // Another platform's token answers exactly like a missing one, so ids never leak across tenants.
  if (token.status !== 'Active' || token.platformId !== platformId) {
    throw new DomainError('TOKEN_NOT_FOUND', 'not_found', `Token ${tokenId} was not found.`);
  }
  return [{ type: 'TokenDeleted', data: { tokenId, platformId, deletedAt: command.metadata.now.toISOString() } }];
};
