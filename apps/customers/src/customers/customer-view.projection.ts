import { EntitySchema } from '@mikro-orm/core';
import type { CustomerType, CustomerWire, KycStatus } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type BeneficialOwner, beneficialOwnerEventTypes, evolveOwners } from '../beneficial-owners/beneficial-owner';
import { renderBeneficialOwner } from '../beneficial-owners/beneficial-owner-view.projection';
import { applyProfileChanges, type CustomerEvent, type CustomerProfile } from './customer';

/** The customer as GET and list return it, with the columns the list filters use. */
export type CustomerRow = {
  id: string;
  platformId: string;
  platformCustomerId: string;
  customerType: CustomerType;
  umaAddress: string;
  region?: string;
  currencies: string[];
  verificationStatus: KycStatus;
  profile: CustomerProfile;
  /** A business's owners, shown in the BusinessCustomer's beneficialOwners. */
  beneficialOwners: BeneficialOwner[];
  isDeleted: boolean;
  createdAt: Date;
  updatedAt: Date;
};

export const CustomerEntity = new EntitySchema<CustomerRow>({
  name: 'CustomerRow',
  tableName: 'customers',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    platformCustomerId: { type: 'string' },
    customerType: { type: 'string' },
    umaAddress: { type: 'string' },
    region: { type: 'string', nullable: true },
    currencies: { type: 'string[]' },
    verificationStatus: { type: 'string' },
    profile: { type: 'json' },
    beneficialOwners: { type: 'json' },
    isDeleted: { type: 'boolean' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

/** GET /customers/{id} reads with plain SQL (see EventSourcing.read); the row as PostgreSQL returns it. */
export const CUSTOMER_BY_ID = `SELECT id, platform_id, platform_customer_id, customer_type, uma_address, region, currencies,
  verification_status, profile, beneficial_owners, is_deleted, created_at, updated_at FROM customers.customers WHERE id = $1
  AND platform_id = $2`;

export type CustomerRowColumns = {
  id: string;
  platform_id: string;
  platform_customer_id: string;
  customer_type: CustomerType;
  uma_address: string;
  region: string | null;
  currencies: string[];
  verification_status: KycStatus;
  profile: CustomerProfile;
  beneficial_owners: BeneficialOwner[];
  is_deleted: boolean;
  created_at: Date;
  updated_at: Date;
};

export const fromColumns = (row: CustomerRowColumns): CustomerRow => ({
  id: row.id,
  platformId: row.platform_id,
  platformCustomerId: row.platform_customer_id,
  customerType: row.customer_type,
  umaAddress: row.uma_address,
  ...(row.region ? { region: row.region } : {}),
  currencies: row.currencies,
  verificationStatus: row.verification_status,
  profile: row.profile,
  beneficialOwners: row.beneficial_owners,
  isDeleted: row.is_deleted,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const evolveCustomerView = (row: CustomerRow | null, recorded: RecordedEvent): CustomerRow | null => {
  const event = recorded as unknown as CustomerEvent;
  if (event.type === 'CustomerCreated') {
    const { customerId, platformId, customerType, profile, verificationStatus, createdAt } = event.data;
    return {
      id: customerId,
      platformId,
      platformCustomerId: profile.platformCustomerId,
      customerType,
      umaAddress: profile.umaAddress,
      ...(profile.region ? { region: profile.region } : {}),
      currencies: profile.currencies,
      verificationStatus,
      profile,
      beneficialOwners: [],
      isDeleted: false,
      createdAt: new Date(createdAt),
      updatedAt: new Date(createdAt),
    };
  }
  // Events for a row the view never saw cannot occur within one stream; skip rather than throw.
  if (!row) return row;
  switch (event.type) {
    case 'CustomerUpdated': {
      const profile = applyProfileChanges(row.profile, event.data.changes);
      // Deciders refuse nulls; should one be recorded anyway, the columns keep their value rather
      // than fail the batch and stall the read model behind it.
      return {
        ...row,
        profile,
        umaAddress: profile.umaAddress ?? row.umaAddress,
        currencies: profile.currencies ?? row.currencies,
        updatedAt: new Date(event.data.updatedAt),
      };
    }
    case 'CustomerVerificationStatusChanged':
      return { ...row, verificationStatus: event.data.to, updatedAt: new Date(event.data.changedAt) };
    case 'CustomerDeleted':
      return { ...row, isDeleted: true, updatedAt: new Date(event.data.deletedAt) };
    case 'BeneficialOwnerAdded':
    case 'BeneficialOwnerUpdated':
    case 'BeneficialOwnerKycStatusChanged':
      // Rows written before owners existed have no list yet.
      return { ...row, beneficialOwners: evolveOwners(row.beneficialOwners ?? [], event) };
    default:
      return row;
  }
};

export const customerViewProjection: Projection<CustomerRow> = {
  name: 'customers',
  // Version 2 added beneficialOwners: the rebuild fills it for businesses that already had owners.
  version: 2,
  canHandle: ['CustomerCreated', 'CustomerUpdated', 'CustomerVerificationStatusChanged', 'CustomerDeleted', ...beneficialOwnerEventTypes],
  entity: CustomerEntity,
  keyOf: (event) => String(event.data['customerId']),
  evolve: evolveCustomerView,
};

export const renderCustomer = (row: CustomerRow): CustomerWire => {
  const { platformCustomerId, umaAddress, region, currencies, email, fullName, birthDate, nationality, address, businessInfo } =
    row.profile;
  const individual = row.customerType === 'INDIVIDUAL';
  return {
    id: row.id,
    platformCustomerId,
    customerType: row.customerType,
    umaAddress,
    ...(region ? { region } : {}),
    currencies,
    ...(email ? { email } : {}),
    ...(individual ? { kycStatus: row.verificationStatus } : { kybStatus: row.verificationStatus }),
    ...(fullName ? { fullName } : {}),
    ...(birthDate ? { birthDate } : {}),
    ...(nationality ? { nationality } : {}),
    ...(address ? { address } : {}),
    ...(businessInfo ? { businessInfo } : {}),
    ...(individual ? {} : { beneficialOwners: (row.beneficialOwners ?? []).map((owner) => renderBeneficialOwner(owner, row.id)) }),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    isDeleted: row.isDeleted,
  };
};
