import type { BeneficialOwnerChanges, BeneficialOwnerPersonalInfoWire, BeneficialOwnerRole, Event, KycStatus } from '@corridor/contracts';

// A beneficial owner belongs to one business customer and is recorded in that customer's stream
// (docs/decisions/0007): the rule that a business's ownership never totals more than 100% then
// holds under concurrent writes, because every owner change appends at the customer's version.

export type BeneficialOwner = {
  beneficialOwnerId: string;
  roles: BeneficialOwnerRole[];
  ownershipPercentage: number;
  personalInfo: BeneficialOwnerPersonalInfoWire;
  kycStatus: KycStatus;
  /** The gateway's fingerprint of the POST that added it, which a retry under its Idempotency-Key must match (not on the wire). */
  requestFingerprint?: string;
  createdAt: string;
  updatedAt: string;
};

export type BeneficialOwnerAdded = Event<
  'BeneficialOwnerAdded',
  {
    customerId: string;
    platformId: string;
    beneficialOwnerId: string;
    roles: BeneficialOwnerRole[];
    ownershipPercentage: number;
    personalInfo: BeneficialOwnerPersonalInfoWire;
    kycStatus: KycStatus;
    /** When the POST came with an Idempotency-Key (the owner's id is then derived from it; decision 0028). */
    requestFingerprint?: string;
    addedAt: string;
  }
>;
export type BeneficialOwnerUpdated = Event<
  'BeneficialOwnerUpdated',
  { customerId: string; platformId: string; beneficialOwnerId: string; changes: BeneficialOwnerChanges; updatedAt: string }
>;
/** The owner's own KYC, screened when the owner is added and again when their personal details change. */
export type BeneficialOwnerKycStatusChanged = Event<
  'BeneficialOwnerKycStatusChanged',
  { customerId: string; platformId: string; beneficialOwnerId: string; from: KycStatus; to: KycStatus; changedAt: string }
>;
export type BeneficialOwnerEvent = BeneficialOwnerAdded | BeneficialOwnerUpdated | BeneficialOwnerKycStatusChanged;

export const beneficialOwnerEventTypes: readonly BeneficialOwnerEvent['type'][] = [
  'BeneficialOwnerAdded',
  'BeneficialOwnerUpdated',
  'BeneficialOwnerKycStatusChanged',
];

export const applyOwnerChanges = (owner: BeneficialOwner, changes: BeneficialOwnerChanges, updatedAt: string): BeneficialOwner => ({
  ...owner,
  ...(changes.roles ? { roles: changes.roles } : {}),
  ...(changes.ownershipPercentage !== undefined ? { ownershipPercentage: changes.ownershipPercentage } : {}),
  ...(changes.personalInfo ? { personalInfo: { ...owner.personalInfo, ...changes.personalInfo } } : {}),
  updatedAt,
});

/** Folds one owner event into a business's list of owners (the aggregate's and the read models' shared step). */
export const evolveOwners = (owners: readonly BeneficialOwner[], event: BeneficialOwnerEvent): BeneficialOwner[] => {
  switch (event.type) {
    case 'BeneficialOwnerAdded': {
      const { beneficialOwnerId, roles, ownershipPercentage, personalInfo, kycStatus, requestFingerprint, addedAt } = event.data;
      if (owners.some((owner) => owner.beneficialOwnerId === beneficialOwnerId)) return [...owners];
      const fingerprint = requestFingerprint !== undefined ? { requestFingerprint } : {};
      return [
        ...owners,
        { beneficialOwnerId, roles, ownershipPercentage, personalInfo, kycStatus, ...fingerprint, createdAt: addedAt, updatedAt: addedAt },
      ];
    }
    case 'BeneficialOwnerUpdated':
      return owners.map((owner) =>
        owner.beneficialOwnerId === event.data.beneficialOwnerId
          ? applyOwnerChanges(owner, event.data.changes, event.data.updatedAt)
          : owner,
      );
    case 'BeneficialOwnerKycStatusChanged':
      return owners.map((owner) =>
        owner.beneficialOwnerId === event.data.beneficialOwnerId
          ? { ...owner, kycStatus: event.data.to, updatedAt: event.data.changedAt }
          : owner,
      );
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

export const totalOwnership = (owners: readonly BeneficialOwner[]): number =>
  owners.reduce((sum, owner) => sum + owner.ownershipPercentage, 0);
