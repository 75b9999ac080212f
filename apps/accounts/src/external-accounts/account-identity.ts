import { type Command, DomainError, type Event } from '@corridor/contracts';

// "This account already exists" spans many account streams, which no single stream can check. As
// customers do for UMA addresses (docs/decisions/0002), the identity is a stream of its own
// (ExternalAccountIdentity:<hash>, see identityKeyOf) claimed with an expected-version append:
// of two racing creates of the same account exactly one wins and the other gets 409.

export type ExternalAccountIdentityClaimed = Event<'ExternalAccountIdentityClaimed', { key: string; externalAccountId: string }>;
export type ExternalAccountIdentityReleased = Event<'ExternalAccountIdentityReleased', { key: string; externalAccountId: string }>;
export type AccountIdentityEvent = ExternalAccountIdentityClaimed | ExternalAccountIdentityReleased;
export type AccountIdentity = { ownerId: string | null };

export const accountIdentityDecider = {
  initialState: (): AccountIdentity => ({ ownerId: null }),
  evolve: (_state: AccountIdentity, event: AccountIdentityEvent): AccountIdentity =>
    event.type === 'ExternalAccountIdentityClaimed' ? { ownerId: event.data.externalAccountId } : { ownerId: null },
};

export type ClaimAccountIdentity = Command<
  'ClaimAccountIdentity',
  {
    key: string;
    externalAccountId: string;
    /** An owner the caller proved gone (deleted, or never created by a create that died); it may be replaced. */
    abandonedOwnerId?: string;
  },
  Record<string, never>
>;

export const claimAccountIdentity = (command: ClaimAccountIdentity, identity: AccountIdentity): AccountIdentityEvent[] => {
  const { key, externalAccountId, abandonedOwnerId } = command.data;
  if (identity.ownerId === externalAccountId) return [];
  if (identity.ownerId !== null && identity.ownerId !== abandonedOwnerId) {
    throw new DomainError(
      'CONFLICT',
      'conflict',
      `This external account already exists as ${identity.ownerId}: same owner, currency and account identifier. Use it, or delete it ` +
        `first.`,
      { existingExternalAccountId: identity.ownerId },
    );
  }
  return [{ type: 'ExternalAccountIdentityClaimed', data: { key, externalAccountId } }];
};

/** Only the holder can give the identity back, so a late release never frees a newer account's claim. */
export const releaseAccountIdentity = (key: string, externalAccountId: string, identity: AccountIdentity): AccountIdentityEvent[] =>
  identity.ownerId === externalAccountId ? [{ type: 'ExternalAccountIdentityReleased', data: { key, externalAccountId } }] : [];
