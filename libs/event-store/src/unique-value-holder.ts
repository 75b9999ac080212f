import type { EventStore } from './types';

/**
 * Who holds a unique value and since when, from its stream's last event (claimUniqueValue's
 * streams, decision 0002): what claimUnique asks after a refusal. Undefined when the stream holds no claim.
 */
export const uniqueValueHolder = async (store: EventStore, key: string): Promise<{ ownerId: string; claimedAt: string } | undefined> => {
  const claimed = (await store.readStream(key)).events.at(-1);
  const ownerId = claimed?.data['ownerId'];
  return claimed && typeof ownerId === 'string' ? { ownerId, claimedAt: claimed.metadata.occurredAt } : undefined;
};
