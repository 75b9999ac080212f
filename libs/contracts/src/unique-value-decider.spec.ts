// Given a unique value's history, when a service claims it (a UMA address, a platformCustomerId,
// a platformCardId), then it is claimed, already the claimant's, taken over from an owner that
// never came to exist, or refused with the service's own conflict code. Contracts stay free of
// libs/testing, so the given/when/then is folded by hand.
import { DomainError } from './errors';
import {
  type ClaimUniqueValue,
  claimUniqueValue,
  releaseUniqueValue,
  type UniqueValue,
  type UniqueValueEvent,
  uniqueValueDecider,
} from './unique-value';

const key = 'UmaAddress:$alice@acme.uma.money';
const given = (events: UniqueValueEvent[]): UniqueValue => events.reduce(uniqueValueDecider.evolve, uniqueValueDecider.initialState());
const claim = (ownerId: string, abandonedOwnerId?: string): ClaimUniqueValue => ({
  type: 'ClaimUniqueValue',
  data: { key, ownerId, conflictCode: 'UMA_ADDRESS_EXISTS', conflictMessage: 'taken', ...(abandonedOwnerId ? { abandonedOwnerId } : {}) },
  metadata: {},
});
const claimed = (ownerId: string): UniqueValueEvent => ({ type: 'UniqueValueClaimed', data: { key, ownerId } });
const released = (ownerId: string): UniqueValueEvent => ({ type: 'UniqueValueReleased', data: { key, ownerId } });

describe('claimUniqueValue', () => {
  it('claims a free value', () => expect(claimUniqueValue(claim('Customer:a'), given([]))).toEqual([claimed('Customer:a')]));

  it("is a no-op for the value's owner (a retried create)", () =>
    expect(claimUniqueValue(claim('Customer:a'), given([claimed('Customer:a')]))).toEqual([]));

  it("refuses another owner with the claiming service's conflict code and message (409)", () => {
    const refusal = (() => {
      try {
        return claimUniqueValue(claim('Customer:b'), given([claimed('Customer:a')]));
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ code: 'UMA_ADDRESS_EXISTS', status: 409, message: 'taken' });
  });

  it('takes over a claim whose owner never came to exist, when the claimant names it', () =>
    expect(claimUniqueValue(claim('Customer:b', 'Customer:a'), given([claimed('Customer:a')]))).toEqual([claimed('Customer:b')]));

  it('does not take over a claim other than the one named as abandoned', () =>
    expect(() => claimUniqueValue(claim('Customer:c', 'Customer:b'), given([claimed('Customer:a')]))).toThrow(DomainError));

  it('claims a released value', () =>
    expect(claimUniqueValue(claim('Customer:b'), given([claimed('Customer:a'), released('Customer:a')]))).toEqual([claimed('Customer:b')]));
});

describe('releaseUniqueValue', () => {
  it("releases the owner's claim", () =>
    expect(releaseUniqueValue(key, 'Customer:a', given([claimed('Customer:a')]))).toEqual([released('Customer:a')]));

  it('leaves alone a value another owner holds, or nobody does', () => {
    expect(releaseUniqueValue(key, 'Customer:b', given([claimed('Customer:a')]))).toEqual([]);
    expect(releaseUniqueValue(key, 'Customer:a', given([]))).toEqual([]);
  });
});
