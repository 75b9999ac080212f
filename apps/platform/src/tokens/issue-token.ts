import {
  type ApiTokenWire,
  type Clock,
  type CreateTokenData,
  grantorPermissionsOf,
  idempotencyScopeOf,
  idForRequest,
  type RequestContext,
} from '@corridor/contracts';
import type { EventSourcing } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { ApiTokenEntity, renderApiToken } from './api-token.projection';
import { createToken, requireSameToken } from './create-token';
import { hashSecret, newClientId, newClientSecret } from './secrets';
import { evolveToken, initialToken, type Token, tokenDecider, type TokenEvent } from './token';
import { freeTokenSlot, takeTokenSlot, tokenSlotsDecider, tokenSlotsStreamId } from './token-slots';

export type TokenLimits = { tokensMax: number };

const logger = createLogger('platform:tokens');

// Appends to one platform's slot stream from this process run one at a time, so a burst of creates
// does not spend the command handler's version-conflict retries; replicas still race, and the
// expected version keeps them exact.
const slotWriters = new Map<string, Promise<unknown>>();
const oneAtATime = <T>(platformId: string, write: () => Promise<T>): Promise<T> => {
  const run = (slotWriters.get(platformId) ?? Promise.resolve()).then(write, write);
  const settled = run.catch(() => undefined);
  slotWriters.set(platformId, settled);
  void settled.then(() => slotWriters.get(platformId) === settled && slotWriters.delete(platformId));
  return run;
};

/**
 * Creates a token and returns it with its secret, which exists only in this reply. The token id is
 * derived from the Idempotency-Key, so a retry after a lost answer finds the token the first attempt
 * made instead of making a second one; it is answered without clientSecret, which was never kept
 * (decision 0028: delete that token and create another if its secret was lost with the answer).
 * The token first takes one of its platform's slots (the cap, token-slots.ts); a creation that is
 * then refused (a permission its grantor does not hold) or fails gives the slot back, unless the
 * token exists after all (a concurrent attempt under the same key made it).
 */
export const issueToken = async (
  eventSourcing: EventSourcing,
  clock: Clock,
  context: RequestContext,
  request: CreateTokenData,
  limits: TokenLimits,
): Promise<ApiTokenWire> => {
  const tokenId = idForRequest('Token', idempotencyScopeOf(context), 'create-token', context.idempotencyKey);
  if (context.idempotencyKey) {
    const earlier = await issuedEarlier(eventSourcing, context, tokenId);
    if (earlier) return earlier;
  }
  await takeSlot(eventSourcing, context, tokenId, limits);
  const clientSecret = newClientSecret();
  try {
    const data = {
      tokenId,
      platformId: context.platformId,
      name: request.name,
      permissions: request.permissions,
      grantorPermissions: grantorPermissionsOf(request),
      clientId: newClientId(),
      secretHash: await hashSecret(clientSecret),
      ...(context.requestFingerprint !== undefined ? { requestFingerprint: context.requestFingerprint } : {}),
    };
    const now = clock.now();
    const decide = (token: Token) => createToken({ type: 'CreateToken', data, metadata: { now } }, token);
    await eventSourcing.handle(tokenId, tokenDecider, decide, context, { assumeNew: true });
  } catch (error) {
    if ((await readToken(eventSourcing, tokenId)).token.status === 'None') await releaseTokenSlot(eventSourcing, context, tokenId);
    throw error;
  }
  const row = await eventSourcing.em.findOneOrFail(ApiTokenEntity, { id: tokenId });
  return { ...renderApiToken(row), clientSecret };
};

const readToken = async (eventSourcing: EventSourcing, tokenId: string) => {
  const { events } = await eventSourcing.store.readStream(tokenId);
  return { events, token: events.reduce((state, event) => evolveToken(state, event as unknown as TokenEvent), initialToken()) };
};

/** The token an earlier attempt under this key made (the same request), as GET shows it; a 409 for another request. */
const issuedEarlier = async (eventSourcing: EventSourcing, context: RequestContext, tokenId: string): Promise<ApiTokenWire | undefined> => {
  const { events, token } = await readToken(eventSourcing, tokenId);
  if (token.status === 'None') return undefined;
  requireSameToken(token, context);
  await eventSourcing.waitForReadModels(events);
  return renderApiToken(await eventSourcing.em.findOneOrFail(ApiTokenEntity, { id: tokenId }));
};

const takeSlot = async (eventSourcing: EventSourcing, context: RequestContext, tokenId: string, limits: TokenLimits): Promise<void> => {
  const { platformId } = context;
  const live = await eventSourcing.em.find(ApiTokenEntity, { platformId }, { fields: ['id'] });
  const data = { platformId, tokenId, tokensMax: limits.tokensMax, liveTokenIds: live.map((row) => row.id) };
  await oneAtATime(platformId, () =>
    eventSourcing.handle(
      tokenSlotsStreamId(platformId),
      tokenSlotsDecider,
      (slots) => takeTokenSlot({ type: 'TakeTokenSlot', data, metadata: {} }, slots),
      context,
    ),
  );
};

/** Gives a token's slot back (after its deletion, or a creation that failed). */
export const releaseTokenSlot = async (eventSourcing: EventSourcing, context: RequestContext, tokenId: string): Promise<void> => {
  const { platformId } = context;
  try {
    await oneAtATime(platformId, () =>
      eventSourcing.handle(
        tokenSlotsStreamId(platformId),
        tokenSlotsDecider,
        (slots) => freeTokenSlot(platformId, tokenId, slots),
        context,
      ),
    );
  } catch (error) {
    // The slot stays taken: the platform can hold one token fewer until an operator frees it. Loud, so someone does.
    logger.error(
      { err: error, platformId, tokenId },
      'Freeing the token slot failed; the platform counts one token too many toward its cap.',
    );
  }
};
