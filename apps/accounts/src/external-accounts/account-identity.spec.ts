// Pins down the duplicate rule's reservation: one holder per identity, and only the holder frees it.
import { deciderSpec } from '@corridor/testing';
import {
  type AccountIdentityEvent,
  accountIdentityDecider,
  claimAccountIdentity,
  type ClaimAccountIdentity,
  releaseAccountIdentity,
} from './account-identity';
import { externalAccountId, otherExternalAccountId } from './external-account.fixtures';

const key = 'ExternalAccountIdentity:abc';
const claim = (id = externalAccountId, abandonedOwnerId?: string): ClaimAccountIdentity => ({
  type: 'ClaimAccountIdentity',
  data: { key, externalAccountId: id, ...(abandonedOwnerId ? { abandonedOwnerId } : {}) },
  metadata: {},
});
const claimed = (id = externalAccountId): AccountIdentityEvent => ({
  type: 'ExternalAccountIdentityClaimed',
  data: { key, externalAccountId: id },
});
const released = (id = externalAccountId): AccountIdentityEvent => ({
  type: 'ExternalAccountIdentityReleased',
  data: { key, externalAccountId: id },
});

const { given } = deciderSpec({ decide: claimAccountIdentity, ...accountIdentityDecider });

describe('ClaimAccountIdentity', () => {
  it('claims a free identity', () => given([]).when(claim()).then([claimed()]));

  it('claims an identity its holder released', () =>
    given([claimed(otherExternalAccountId), released(otherExternalAccountId)])
      .when(claim())
      .then([claimed()]));

  it('refuses a second account with 409 naming the existing one', () =>
    given([claimed(otherExternalAccountId)])
      .when(claim())
      .thenThrows(
        (error) =>
          error.code === 'CONFLICT' && error.status === 409 && error.details?.['existingExternalAccountId'] === otherExternalAccountId,
      ));

  it('takes over from a holder proven gone', () =>
    given([claimed(otherExternalAccountId)])
      .when(claim(externalAccountId, otherExternalAccountId))
      .then([claimed()]));

  it('does nothing when the holder claims again', () => given([claimed()]).when(claim()).thenNothingHappened());
});

describe('releaseAccountIdentity', () => {
  const fold = (events: AccountIdentityEvent[]) => events.reduce(accountIdentityDecider.evolve, accountIdentityDecider.initialState());

  it('frees the identity for its holder', () =>
    expect(releaseAccountIdentity(key, externalAccountId, fold([claimed()]))).toEqual([released()]));

  it('leaves another holder’s claim alone', () =>
    expect(releaseAccountIdentity(key, externalAccountId, fold([claimed(otherExternalAccountId)]))).toEqual([]));
});
