import { type ApiTokenWire, type Clock, type CreateTokenData, idempotencyScopeOf, idForRequest, type RequestContext } from '@corridor/contracts';
import type { EventSourcing } from '@corridor/event-store';
import { ApiTokenEntity, renderApiToken } from './api-token.projection';
import { createToken, requireSameToken } from './create-token';
import { hashSecret, newClientId, newClientSecret } from './secrets';
import { evolveToken, initialToken, tokenDecider, type TokenEvent } from './token';

/**
 * Creates a token and returns it with its secret, which exists only in this reply. The token id is
 * derived from the Idempotency-Key, so a retry after a lost answer finds the token the first attempt
 * made instead of making a second one; it is answered without clientSecret, which was never kept
 * (decision 0028: delete that token and create another if its secret was lost with the answer).
 */
export const issueToken = async (
  eventSourcing: EventSourcing,
  clock: Clock,
  context: RequestContext,
  request: CreateTokenData,
): Promise<ApiTokenWire> => {
  const tokenId = idForRequest('Token', idempotencyScopeOf(context), 'create-token', context.idempotencyKey);
  if (context.idempotencyKey) {
    const earlier = await issuedEarlier(eventSourcing, context, tokenId);
    if (earlier) return earlier;
  }
  const clientSecret = newClientSecret();
  const data = {
    tokenId,
    platformId: context.platformId,
    name: request.name,
    permissions: request.permissions,
    clientId: newClientId(),
    secretHash: await hashSecret(clientSecret),
    ...(context.requestFingerprint !== undefined ? { requestFingerprint: context.requestFingerprint } : {}),
  };
  const now = clock.now();
  await eventSourcing.handle(tokenId, tokenDecider, (token) => createToken({ type: 'CreateToken', data, metadata: { now } }, token), context, { assumeNew: true });
  const row = await eventSourcing.em.findOneOrFail(ApiTokenEntity, { id: tokenId });
  return { ...renderApiToken(row), clientSecret };
};

/** The token an earlier attempt under this key made (the same request), as GET shows it; a 409 for another request. */
const issuedEarlier = async (eventSourcing: EventSourcing, context: RequestContext, tokenId: string): Promise<ApiTokenWire | undefined> => {
  const { events } = await eventSourcing.store.readStream(tokenId);
  const token = events.reduce((state, event) => evolveToken(state, event as unknown as TokenEvent), initialToken());
  if (token.status === 'None') return undefined;
  requireSameToken(token, context);
  await eventSourcing.waitForReadModels(events);
  return renderApiToken(await eventSourcing.em.findOneOrFail(ApiTokenEntity, { id: tokenId }));
};
