import {
  type Command,
  type CreateBeneficialOwnerData,
  DomainError,
  invalidInput,
  type KycStatus,
  requireSameRequest,
} from '@corridor/contracts';
import type { Customer, CustomerEvent, ExistingCustomer } from '../customers/customer';
import { requireLiveCustomer } from '../customers/update-customer';
import { type BeneficialOwner, totalOwnership } from './beneficial-owner';

export type AddBeneficialOwner = Command<
  'AddBeneficialOwner',
  {
    beneficialOwnerId: string;
    platformId: string;
    request: CreateBeneficialOwnerData;
    kycStatus: KycStatus;
    /** The request's fingerprint, when it has an Idempotency-Key (the owner's id is then derived from the key). */
    requestFingerprint?: string;
  },
  { now: Date }
>;

/** A business has a handful of owners and officers; the bound keeps a runaway client from growing the stream without end. */
export const MAX_BENEFICIAL_OWNERS = 50;
const MAX_OWNERSHIP_PERCENT = 100;

/** Owners belong to a live business customer of the asking platform. */
export const requireBusiness = (customer: Customer, customerId: string, platformId: string): ExistingCustomer => {
  const existing = requireLiveCustomer(customer, customerId, platformId);
  if (existing.customerType !== 'BUSINESS') {
    throw invalidInput(`Customer ${customerId} is an INDIVIDUAL customer; beneficial owners belong to BUSINESS customers.`, {
      field: 'customerId',
    });
  }
  return existing;
};

/** The business's ownership may reach 100% exactly, never more. */
export const checkOwnershipTotal = (others: readonly BeneficialOwner[], percentage: number): void => {
  const allocated = totalOwnership(others);
  if (allocated + percentage > MAX_OWNERSHIP_PERCENT) {
    throw invalidInput(
      `ownershipPercentage ${percentage} would bring the business's total ownership to ${allocated + percentage}%; ${allocated}% is ` +
        `already held by its other owners, so at most ${MAX_OWNERSHIP_PERCENT - allocated} is available.`,
      { field: 'ownershipPercentage', allocatedPercent: allocated, availablePercent: MAX_OWNERSHIP_PERCENT - allocated },
    );
  }
};

export const checkBirthDate = (birthDate: string | undefined, now: Date): void => {
  if (birthDate !== undefined && birthDate > now.toISOString().slice(0, 10)) {
    throw invalidInput(`personalInfo.birthDate ${birthDate} is in the future.`, { field: 'personalInfo.birthDate' });
  }
};

export const addBeneficialOwner = (command: AddBeneficialOwner, customer: Customer): CustomerEvent[] => {
  const { beneficialOwnerId, platformId, request, kycStatus, requestFingerprint } = command.data;
  const business = requireBusiness(customer, request.customerId, platformId);
  // The id is derived from the Idempotency-Key: an owner under it is this request again (a retry,
  // nothing left to do) or another request under a used key, a 409 (decision 0028).
  const earlier = business.beneficialOwners.find((owner) => owner.beneficialOwnerId === beneficialOwnerId);
  if (earlier) {
    requireSameRequest(earlier.requestFingerprint, requestFingerprint, beneficialOwnerId);
    return [];
  }
  if (business.beneficialOwners.length >= MAX_BENEFICIAL_OWNERS) {
    throw new DomainError(
      'INVALID_INPUT',
      'validation',
      `Customer ${request.customerId} already has ${MAX_BENEFICIAL_OWNERS} beneficial owners, the most one business may have.`,
      { field: 'customerId' },
    );
  }
  checkBirthDate(request.personalInfo.birthDate, command.metadata.now);
  checkOwnershipTotal(business.beneficialOwners, request.ownershipPercentage);
  return [
    {
      type: 'BeneficialOwnerAdded',
      data: {
        customerId: request.customerId,
        platformId,
        beneficialOwnerId,
        roles: [...new Set(request.roles)],
        ownershipPercentage: request.ownershipPercentage,
        personalInfo: request.personalInfo,
        kycStatus,
        ...(requestFingerprint !== undefined ? { requestFingerprint } : {}),
        addedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
