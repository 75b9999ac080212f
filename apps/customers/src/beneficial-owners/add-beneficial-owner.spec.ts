// Pins down who may be added as a beneficial owner: only to a live business of the asking
// platform, never past 100% ownership in total, with the KYC outcome recorded on the owner.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { customerDecider } from '../customers/customer';
import { customerId, individualCreated, otherPlatformId, platformId } from '../customers/customer.fixtures';
import { addBeneficialOwner } from './add-beneficial-owner';
import {
  addedAt,
  addOwnerCommand,
  businessCreated,
  createOwnerRequest,
  ownerAdded,
  ownerId,
  personalInfo,
  secondOwnerId,
} from './beneficial-owner.fixtures';

const { given } = deciderSpec({ decide: addBeneficialOwner, ...customerDecider });

describe('AddBeneficialOwner', () => {
  it('adds an owner to a business with the KYC outcome of their screening', () =>
    given([businessCreated()])
      .when(addOwnerCommand(createOwnerRequest(), { kycStatus: 'REJECTED' }))
      .then([
        {
          type: 'BeneficialOwnerAdded',
          data: {
            customerId,
            platformId,
            beneficialOwnerId: ownerId,
            roles: ['UBO', 'CONTROL_PERSON'],
            ownershipPercentage: 60,
            personalInfo: personalInfo(),
            kycStatus: 'REJECTED',
            addedAt,
          },
        },
      ]));

  it('lets the total reach exactly 100%', () =>
    given([businessCreated(), ownerAdded({ percentage: 60 })])
      .when(addOwnerCommand(createOwnerRequest({ ownershipPercentage: 40 }), { id: secondOwnerId }))
      .then([expect.objectContaining({ type: 'BeneficialOwnerAdded' })]));

  it('refuses an owner that would take the total above 100%, naming what is left', () =>
    given([businessCreated(), ownerAdded({ percentage: 60 })])
      .when(addOwnerCommand(createOwnerRequest({ ownershipPercentage: 41 }), { id: secondOwnerId }))
      .thenThrows((error) => {
        expect(error).toBeInstanceOf(DomainError);
        expect(error).toMatchObject({
          code: 'INVALID_INPUT',
          status: 400,
          details: { field: 'ownershipPercentage', allocatedPercent: 60, availablePercent: 40 },
        });
      }));

  it('refuses an individual customer with 400 naming customerId', () =>
    given([individualCreated()])
      .when(addOwnerCommand(createOwnerRequest()))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'customerId' } })));

  it('answers 404 for another platform’s business and for an unknown customer', () => {
    given([businessCreated()])
      .when(addOwnerCommand(createOwnerRequest(), { platformId: otherPlatformId }))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'USER_NOT_FOUND', status: 404 }));
    given([])
      .when(addOwnerCommand(createOwnerRequest()))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'USER_NOT_FOUND', status: 404 }));
  });

  it('refuses a birth date in the future', () =>
    given([businessCreated()])
      .when(addOwnerCommand(createOwnerRequest({ personalInfo: personalInfo({ birthDate: '2030-01-01' }) })))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'personalInfo.birthDate' } })));

  describe('under a used Idempotency-Key (the owner id is derived from it)', () => {
    const first = 'b1'.repeat(32);
    it('keeps the request’s fingerprint with the owner', () =>
      given([businessCreated()])
        .when(addOwnerCommand(createOwnerRequest(), { requestFingerprint: first }))
        .then([expect.objectContaining({ type: 'BeneficialOwnerAdded', data: expect.objectContaining({ requestFingerprint: first }) })]));
    it('does nothing when the same request comes again', () =>
      given([businessCreated(), ownerAdded({ requestFingerprint: first })])
        .when(addOwnerCommand(createOwnerRequest(), { requestFingerprint: first }))
        .thenNothingHappened());
    it('refuses another request under the key with a 409 naming the owner', () =>
      given([businessCreated(), ownerAdded({ requestFingerprint: first })])
        .when(addOwnerCommand(createOwnerRequest({ ownershipPercentage: 10 }), { requestFingerprint: 'c2'.repeat(32) }))
        .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT', status: 409, details: { resourceId: ownerId } })));
    it('refuses a request without a key whose id names an owner', () =>
      given([businessCreated(), ownerAdded()])
        .when(addOwnerCommand(createOwnerRequest()))
        .thenThrows((error) => expect(error).toMatchObject({ status: 409 })));
  });

  it('refuses a deleted business with 410', () =>
    given([businessCreated(), { type: 'CustomerDeleted', data: { customerId, platformId, deletedAt: addedAt } }])
      .when(addOwnerCommand(createOwnerRequest()))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'CUSTOMER_DELETED', status: 410 })));
});
