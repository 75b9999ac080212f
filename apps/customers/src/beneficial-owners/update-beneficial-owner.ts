import { type BeneficialOwnerChanges, type Command, DomainError, invalidInput, type KycStatus } from '@corridor/contracts';
import type { Customer, CustomerEvent } from '../customers/customer';
import { applyOwnerChanges } from './beneficial-owner';
import { checkBirthDate, checkOwnershipTotal, requireBusiness } from './add-beneficial-owner';

export type UpdateBeneficialOwner = Command<
  'UpdateBeneficialOwner',
  {
    beneficialOwnerId: string;
    customerId: string;
    platformId: string;
    patch: BeneficialOwnerChanges;
    /** The owner screened again on their changed personal details; absent when personalInfo is not patched. */
    kycStatus?: KycStatus;
  },
  { now: Date }
>;

export const ownerNotFound = (beneficialOwnerId: string) =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Beneficial owner ${beneficialOwnerId} was not found.`);

/** Every member of the reference's owner is required, so none can be erased with null; leave it out to keep it. */
const checkNoNulls = (patch: BeneficialOwnerChanges): void => {
  const nulls = [
    ...Object.keys(patch).filter((name) => (patch as Record<string, unknown>)[name] === null),
    ...Object.keys(patch.personalInfo ?? {})
      .filter((name) => (patch.personalInfo as Record<string, unknown>)[name] === null)
      .map((name) => `personalInfo.${name}`),
  ];
  if (nulls.length > 0)
    throw invalidInput(`${nulls.join(', ')} cannot be null. Leave a member out to keep its value.`, { field: nulls[0], fields: nulls });
};

export const updateBeneficialOwner = (command: UpdateBeneficialOwner, customer: Customer): CustomerEvent[] => {
  const { beneficialOwnerId, customerId, platformId, patch, kycStatus } = command.data;
  checkNoNulls(patch);
  const business = requireBusiness(customer, customerId, platformId);
  const owner = business.beneficialOwners.find((candidate) => candidate.beneficialOwnerId === beneficialOwnerId);
  if (!owner) throw ownerNotFound(beneficialOwnerId);
  checkBirthDate(patch.personalInfo?.birthDate, command.metadata.now);
  if (patch.ownershipPercentage !== undefined) {
    checkOwnershipTotal(
      business.beneficialOwners.filter((other) => other !== owner),
      patch.ownershipPercentage,
    );
  }

  const at = command.metadata.now.toISOString();
  const changes: BeneficialOwnerChanges = { ...patch, ...(patch.roles ? { roles: [...new Set(patch.roles)] } : {}) };
  const next = applyOwnerChanges(owner, changes, owner.updatedAt);
  const events: CustomerEvent[] = [];
  if (JSON.stringify(next) !== JSON.stringify(owner)) {
    events.push({ type: 'BeneficialOwnerUpdated', data: { customerId, platformId, beneficialOwnerId, changes, updatedAt: at } });
  }
  if (kycStatus !== undefined && kycStatus !== owner.kycStatus && events.length > 0) {
    events.push({
      type: 'BeneficialOwnerKycStatusChanged',
      data: { customerId, platformId, beneficialOwnerId, from: owner.kycStatus, to: kycStatus, changedAt: at },
    });
  }
  return events;
};
