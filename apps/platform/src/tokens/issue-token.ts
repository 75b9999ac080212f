import { type ApiTokenWire, type Clock, type CreateTokenData, newId, type RequestContext } from '@corridor/contracts';
import type { EventSourcing } from '@corridor/event-store';
import { ApiTokenEntity, renderApiToken } from './api-token.projection';
import { createToken } from './create-token';
import { hashSecret, newClientId, newClientSecret } from './secrets';
import { tokenDecider } from './token';

/** Creates a token and returns it with its secret, which exists only in this reply. */
export const issueToken = async (
  eventSourcing: EventSourcing,
  clock: Clock,
  context: RequestContext,
  request: CreateTokenData,
): Promise<ApiTokenWire> => {
  const tokenId = newId('Token');
  const clientSecret = newClientSecret();
  const data = {
    tokenId,
    platformId: context.platformId,
    name: request.name,
    permissions: request.permissions,
    clientId: newClientId(),
    secretHash: await hashSecret(clientSecret),
  };
  const now = clock.now();
  await eventSourcing.handle(tokenId, tokenDecider, (token) => createToken({ type: 'CreateToken', data, metadata: { now } }, token), context, { assumeNew: true });
  const row = await eventSourcing.em.findOneOrFail(ApiTokenEntity, { id: tokenId });
  return { ...renderApiToken(row), clientSecret };
};
