import { EntitySchema } from '@mikro-orm/core';
import type { BeneficialOwnerPersonalInfoWire, BeneficialOwnerRole, BeneficialOwnerWire, KycStatus } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type BeneficialOwner, type BeneficialOwnerEvent, beneficialOwnerEventTypes, evolveOwners } from './beneficial-owner';

/** One beneficial owner as GET /beneficial-owners/{id} and the list return it. */
export type BeneficialOwnerRow = {
  id: string;
  customerId: string;
  platformId: string;
  roles: BeneficialOwnerRole[];
  ownershipPercentage: number;
  personalInfo: BeneficialOwnerPersonalInfoWire;
  kycStatus: KycStatus;
  createdAt: Date;
  updatedAt: Date;
};

export const BeneficialOwnerEntity = new EntitySchema<BeneficialOwnerRow>({
  name: 'BeneficialOwnerRow',
  tableName: 'beneficial_owners',
  properties: {
    id: { type: 'string', primary: true },
    customerId: { type: 'string' },
    platformId: { type: 'string' },
    roles: { type: 'string[]' },
    ownershipPercentage: { type: 'integer' },
    personalInfo: { type: 'json' },
    kycStatus: { type: 'string' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

const toOwner = (row: BeneficialOwnerRow): BeneficialOwner => ({
  beneficialOwnerId: row.id,
  roles: row.roles,
  ownershipPercentage: row.ownershipPercentage,
  personalInfo: row.personalInfo,
  kycStatus: row.kycStatus,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** The aggregate's own step for owners, applied to this one row. */
export const evolveBeneficialOwnerView = (row: BeneficialOwnerRow | null, recorded: RecordedEvent): BeneficialOwnerRow | null => {
  const event = recorded as unknown as BeneficialOwnerEvent;
  if (!beneficialOwnerEventTypes.includes(event.type)) return row;
  if (!row && event.type !== 'BeneficialOwnerAdded') return row;
  const [owner] = evolveOwners(row ? [toOwner(row)] : [], event);
  if (!owner) return row;
  return {
    id: owner.beneficialOwnerId,
    customerId: String(event.data.customerId),
    platformId: String(event.data.platformId),
    roles: owner.roles,
    ownershipPercentage: owner.ownershipPercentage,
    personalInfo: owner.personalInfo,
    kycStatus: owner.kycStatus,
    createdAt: new Date(owner.createdAt),
    updatedAt: new Date(owner.updatedAt),
  };
};

export const beneficialOwnerViewProjection: Projection<BeneficialOwnerRow> = {
  name: 'beneficial-owners',
  version: 1,
  canHandle: beneficialOwnerEventTypes,
  entity: BeneficialOwnerEntity,
  keyOf: (event) => String(event.data['beneficialOwnerId']),
  evolve: evolveBeneficialOwnerView,
};

export const renderBeneficialOwner = (owner: BeneficialOwner, customerId: string): BeneficialOwnerWire => ({
  id: owner.beneficialOwnerId,
  customerId,
  roles: owner.roles,
  ownershipPercentage: owner.ownershipPercentage,
  personalInfo: owner.personalInfo,
  kycStatus: owner.kycStatus,
  createdAt: owner.createdAt,
  updatedAt: owner.updatedAt,
});

export const renderBeneficialOwnerRow = (row: BeneficialOwnerRow): BeneficialOwnerWire =>
  renderBeneficialOwner(toOwner(row), row.customerId);
