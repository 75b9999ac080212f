import { DomainError } from './errors';
import type { Command, Event } from './messages';

// Uniqueness across streams (a UMA address, a platformCustomerId or platformCardId within a
// platform) is a stream of its own (decision 0002): claiming appends with an expected version, so
// two racing creates cannot both win. One decider for every service that reserves values.

export type UniqueValueClaimed = Event<'UniqueValueClaimed', { key: string; ownerId: string }>;
export type UniqueValueReleased = Event<'UniqueValueReleased', { key: string; ownerId: string }>;
export type UniqueValueEvent = UniqueValueClaimed | UniqueValueReleased;
export type UniqueValue = { ownerId: string | null };

export const uniqueValueDecider = {
  initialState: (): UniqueValue => ({ ownerId: null }),
  evolve: (_state: UniqueValue, event: UniqueValueEvent): UniqueValue =>
    event.type === 'UniqueValueClaimed' ? { ownerId: event.data.ownerId } : { ownerId: null },
};

export type ClaimUniqueValue = Command<
  'ClaimUniqueValue',
  { key: string; ownerId: string; conflictCode: string; conflictMessage: string; abandonedOwnerId?: string },
  Record<string, never>
>;

export const claimUniqueValue = (command: ClaimUniqueValue, value: UniqueValue): UniqueValueEvent[] => {
  const { key, ownerId, conflictCode, conflictMessage, abandonedOwnerId } = command.data;
  if (value.ownerId === ownerId) return [];
  // A claim whose owner never came to exist (the process died between claim and create) may be taken over.
  if (value.ownerId !== null && value.ownerId !== abandonedOwnerId) {
    throw new DomainError(conflictCode, 'conflict', conflictMessage);
  }
  return [{ type: 'UniqueValueClaimed', data: { key, ownerId } }];
};

export const releaseUniqueValue = (key: string, ownerId: string, value: UniqueValue): UniqueValueEvent[] =>
  value.ownerId === ownerId ? [{ type: 'UniqueValueReleased', data: { key, ownerId } }] : [];

/**
 * A claim older than any request could take, whose owner never came to exist, was left by a
 * create that died between its claim and its first event (decision 0002). Anything younger may
 * still be a create in flight, which would lose its value if the claim were taken over.
 */
export const ABANDONED_CLAIM_AGE_MS = 60_000;

/** What a refused claimer learns of the value's holder: 'deleted' only where the owner's stream records deletes. */
export type ClaimHolderState = 'exists' | 'deleted' | 'missing';

/** Whether a held value may be taken over: its holder was deleted, or never came to exist and the claim is old (>= the age). */
export const claimAbandoned = (holder: ClaimHolderState, claimedAt: string, now: Date): boolean =>
  holder === 'deleted' || (holder === 'missing' && now.getTime() - Date.parse(claimedAt) >= ABANDONED_CLAIM_AGE_MS);

/** The I/O claimUnique needs, handed in by the service (its event store and clock). */
export type UniqueClaim = {
  /** The code the value's decider refuses a held value with; any other failure is not a conflict. */
  conflictCode: string;
  /** One claim of the value; abandonedOwnerId names a holder proved gone, which the claim replaces. */
  claim: (abandonedOwnerId?: string) => Promise<unknown>;
  /** The holder a refusal names and when it claimed, read after the refusal; undefined when it cannot be told. */
  holderOf: (refusal: DomainError) => Promise<{ ownerId: string; claimedAt: string } | undefined>;
  /** Whether the holder's own stream shows it, shows it deleted, or is empty. */
  holderState: (ownerId: string) => Promise<ClaimHolderState>;
  now: () => Date;
};

/**
 * Claims a unique value once; when it is held, takes it over only from a holder proved gone
 * (claimAbandoned), else the refusal stands. The takeover names the holder it replaces, so a
 * racing claimer that got there first is refused rather than overwritten.
 */
export const claimUnique = async (unique: UniqueClaim): Promise<void> => {
  try {
    await unique.claim();
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== unique.conflictCode) throw error;
    const holder = await unique.holderOf(error);
    if (!holder || !claimAbandoned(await unique.holderState(holder.ownerId), holder.claimedAt, unique.now())) throw error;
    await unique.claim(holder.ownerId);
  }
};
