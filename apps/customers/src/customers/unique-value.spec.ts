// Pins down how a unique value (UMA address, platformCustomerId) is claimed and released.
import { deciderSpec } from '@corridor/testing';
import { claimUniqueValue, type ClaimUniqueValue, uniqueValueDecider } from '@corridor/contracts';

const given = deciderSpec({ decide: claimUniqueValue, ...uniqueValueDecider }).given;
const key = 'UmaAddress:$alice@acme.uma.money';
const claim = (ownerId: string, abandonedOwnerId?: string): ClaimUniqueValue => ({
  type: 'ClaimUniqueValue',
  data: { key, ownerId, conflictCode: 'UMA_ADDRESS_EXISTS', conflictMessage: 'taken', ...(abandonedOwnerId ? { abandonedOwnerId } : {}) },
  metadata: {},
});
const claimed = (ownerId: string) => ({ type: 'UniqueValueClaimed' as const, data: { key, ownerId } });

describe('ClaimUniqueValue', () => {
  it('claims a free value', () =>
    given([])
      .when(claim('Customer:a'))
      .then([claimed('Customer:a')]));
  it('is a no-op for the owner', () =>
    given([claimed('Customer:a')])
      .when(claim('Customer:a'))
      .thenNothingHappened());
  it('refuses another owner with the conflict code', () =>
    given([claimed('Customer:a')])
      .when(claim('Customer:b'))
      .thenThrows((error) => error.code === 'UMA_ADDRESS_EXISTS' && error.status === 409));
  it('takes over an abandoned claim', () =>
    given([claimed('Customer:a')])
      .when(claim('Customer:b', 'Customer:a'))
      .then([claimed('Customer:b')]));
  it('claims a released value', () =>
    given([claimed('Customer:a'), { type: 'UniqueValueReleased', data: { key, ownerId: 'Customer:a' } }])
      .when(claim('Customer:b'))
      .then([claimed('Customer:b')]));
});
