// Pins down PATCH of a beneficial owner: partial changes, the 100% ceiling counted without the
// owner's own old share, a new screening when personal details change, and no-op patches.
import { deciderSpec } from '@corridor/testing';
import type { BeneficialOwnerChanges, KycStatus } from '@corridor/contracts';
import { customerDecider } from '../customers/customer';
import { customerId, later, otherPlatformId, platformId } from '../customers/customer.fixtures';
import { businessCreated, ownerAdded, ownerId, secondOwnerId } from './beneficial-owner.fixtures';
import { type UpdateBeneficialOwner, updateBeneficialOwner } from './update-beneficial-owner';

const { given } = deciderSpec({ decide: updateBeneficialOwner, ...customerDecider });
const changedAt = later.toISOString();

const patch = (
  changes: BeneficialOwnerChanges,
  options: { id?: string; kycStatus?: KycStatus; platformId?: string } = {},
): UpdateBeneficialOwner => ({
  type: 'UpdateBeneficialOwner',
  data: {
    beneficialOwnerId: options.id ?? ownerId,
    customerId,
    platformId: options.platformId ?? platformId,
    patch: changes,
    ...(options.kycStatus ? { kycStatus: options.kycStatus } : {}),
  },
  metadata: { now: later },
});

describe('UpdateBeneficialOwner', () => {
  it('raises an owner’s share up to what the other owners leave', () =>
    given([businessCreated(), ownerAdded({ percentage: 60 }), ownerAdded({ id: secondOwnerId, percentage: 30 })])
      .when(patch({ ownershipPercentage: 70 }))
      .then([
        {
          type: 'BeneficialOwnerUpdated',
          data: { customerId, platformId, beneficialOwnerId: ownerId, changes: { ownershipPercentage: 70 }, updatedAt: changedAt },
        },
      ]));

  it('refuses a share that would take the total above 100%', () =>
    given([businessCreated(), ownerAdded({ percentage: 60 }), ownerAdded({ id: secondOwnerId, percentage: 30 })])
      .when(patch({ ownershipPercentage: 71 }))
      .thenThrows((error) =>
        expect(error).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'ownershipPercentage', availablePercent: 70 } }),
      ));

  it('records the new screening when personal details change the outcome', () =>
    given([businessCreated(), ownerAdded({ kycStatus: 'REJECTED', info: { lastName: 'Smith002' } })])
      .when(patch({ personalInfo: { lastName: 'Smith' } }, { kycStatus: 'APPROVED' }))
      .then([
        {
          type: 'BeneficialOwnerUpdated',
          data: {
            customerId,
            platformId,
            beneficialOwnerId: ownerId,
            changes: { personalInfo: { lastName: 'Smith' } },
            updatedAt: changedAt,
          },
        },
        {
          type: 'BeneficialOwnerKycStatusChanged',
          data: { customerId, platformId, beneficialOwnerId: ownerId, from: 'REJECTED', to: 'APPROVED', changedAt },
        },
      ]));

  it('does nothing when the patch changes nothing', () =>
    given([businessCreated(), ownerAdded({ percentage: 60 })])
      .when(patch({ ownershipPercentage: 60, roles: ['UBO', 'CONTROL_PERSON'] }, { kycStatus: 'APPROVED' }))
      .thenNothingHappened());

  it('refuses null members, naming them', () =>
    given([businessCreated(), ownerAdded()])
      .when(patch({ personalInfo: { lastName: null as never } }))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'INVALID_INPUT', details: { field: 'personalInfo.lastName' } })));

  it('answers 404 for an owner the business does not have, and for another platform', () => {
    given([businessCreated(), ownerAdded()])
      .when(patch({ ownershipPercentage: 10 }, { id: secondOwnerId }))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'REFERENCE_NOT_FOUND', status: 404 }));
    given([businessCreated(), ownerAdded()])
      .when(patch({ ownershipPercentage: 10 }, { platformId: otherPlatformId }))
      .thenThrows((error) => expect(error).toMatchObject({ status: 404 }));
  });
});
