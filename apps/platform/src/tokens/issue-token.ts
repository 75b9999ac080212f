import { type ApiTokenWire, type Clock, type CreateTokenData, grantorPermissionsOf, newId, type RequestContext } from '@corridor/contracts';
import type { EventSourcing } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { ApiTokenEntity, renderApiToken } from './api-token.projection';
import { createToken } from './create-token';
import { hashSecret, newClientId, newClientSecret } from './secrets';
import { tokenDecider } from './token';
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
 * Creates a token and returns it with its secret, which exists only in this reply. The token first
 * takes one of its platform's slots (the cap, token-slots.ts); a creation that is then refused
 * (a permission its grantor does not hold) or fails gives the slot back.
 */
export const issueToken = async (
  eventSourcing: EventSourcing,
  clock: Clock,
  context: RequestContext,
  request: CreateTokenData,
  limits: TokenLimits,
): Promise<ApiTokenWire> => {
  const tokenId = newId('Token');
  const { platformId } = context;
  await takeSlot(eventSourcing, context, tokenId, limits);
  const clientSecret = newClientSecret();
  try {
    const data = {
      tokenId,
      platformId,
      name: request.name,
      permissions: request.permissions,
      grantorPermissions: grantorPermissionsOf(request),
      clientId: newClientId(),
      secretHash: await hashSecret(clientSecret),
    };
    const now = clock.now();
    await eventSourcing.handle(
      tokenId,
      tokenDecider,
      (token) => createToken({ type: 'CreateToken', data, metadata: { now } }, token),
      context,
      { assumeNew: true },
    );
  } catch (error) {
    await releaseTokenSlot(eventSourcing, context, tokenId);
    throw error;
  }
  const row = await eventSourcing.em.findOneOrFail(ApiTokenEntity, { id: tokenId });
  return { ...renderApiToken(row), clientSecret };
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
