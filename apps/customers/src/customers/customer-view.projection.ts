import { EntitySchema } from '@mikro-orm/core';
import type { CustomerType, CustomerWire, KycStatus } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
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
    isDeleted: { type: 'boolean' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
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
      return { ...row, profile, umaAddress: profile.umaAddress, currencies: profile.currencies, updatedAt: new Date(event.data.updatedAt) };
    }
    case 'CustomerVerificationStatusChanged':
      return { ...row, verificationStatus: event.data.to, updatedAt: new Date(event.data.changedAt) };
    case 'CustomerDeleted':
      return { ...row, isDeleted: true, updatedAt: new Date(event.data.deletedAt) };
    default:
      return row;
  }
};

export const customerViewProjection: Projection<CustomerRow> = {
  name: 'customers',
  version: 1,
  canHandle: ['CustomerCreated', 'CustomerUpdated', 'CustomerVerificationStatusChanged', 'CustomerDeleted'],
  entity: CustomerEntity,
  keyOf: (event) => String(event.data['customerId']),
  evolve: evolveCustomerView,
};

export const renderCustomer = (row: CustomerRow): CustomerWire => {
  const { platformCustomerId, umaAddress, region, currencies, email, fullName, birthDate, nationality, address, businessInfo } = row.profile;
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
    ...(individual ? {} : { beneficialOwners: [] }),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    isDeleted: row.isDeleted,
  };
};
