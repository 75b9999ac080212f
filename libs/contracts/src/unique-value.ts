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
