import type { AddressWire, BusinessInfoWire, CustomerType, Event, KycStatus } from '@corridor/contracts';
import { type BeneficialOwner, type BeneficialOwnerEvent, evolveOwners } from '../beneficial-owners/beneficial-owner';
import type { VerificationEvent, VerificationSummary } from '../verifications/verification';

/** The customer's details as the platform supplied them; the stream records every change. */
export type CustomerProfile = {
  platformCustomerId: string;
  umaAddress: string;
  region?: string;
  currencies: string[];
  email?: string;
  fullName?: string;
  birthDate?: string;
  nationality?: string;
  address?: AddressWire;
  businessInfo?: BusinessInfoWire;
};

export type ProfileChanges = Partial<Omit<CustomerProfile, 'platformCustomerId' | 'region' | 'businessInfo'>> & {
  businessInfo?: Partial<BusinessInfoWire>;
};

export type CustomerCreated = Event<
  'CustomerCreated',
  { customerId: string; platformId: string; customerType: CustomerType; profile: CustomerProfile; verificationStatus: KycStatus; createdAt: string }
>;
export type CustomerUpdated = Event<'CustomerUpdated', { customerId: string; platformId: string; changes: ProfileChanges; updatedAt: string }>;
/** KYC for individuals, KYB for businesses; announced separately because webhooks follow it. */
export type CustomerVerificationStatusChanged = Event<
  'CustomerVerificationStatusChanged',
  { customerId: string; platformId: string; customerType: CustomerType; from: KycStatus | null; to: KycStatus; changedAt: string; verificationId?: string }
>;
export type CustomerDeleted = Event<'CustomerDeleted', { customerId: string; platformId: string; deletedAt: string }>;
export type CustomerEvent = CustomerCreated | CustomerUpdated | CustomerVerificationStatusChanged | CustomerDeleted | BeneficialOwnerEvent | VerificationEvent;

export type ExistingCustomer = {
  customerId: string;
  platformId: string;
  customerType: CustomerType;
  profile: CustomerProfile;
  verificationStatus: KycStatus;
  createdAt: string;
  updatedAt: string;
  /** Businesses only; in the order they were added. */
  beneficialOwners: BeneficialOwner[];
  latestVerification?: VerificationSummary;
};
export type Customer = { status: 'None' } | ({ status: 'Active' | 'Deleted' } & ExistingCustomer);

export const initialCustomer = (): Customer => ({ status: 'None' });

export const applyProfileChanges = (profile: CustomerProfile, changes: ProfileChanges): CustomerProfile => {
  const { businessInfo, ...rest } = changes;
  const next: CustomerProfile = { ...profile, ...rest };
  if (businessInfo && profile.businessInfo) next.businessInfo = { ...profile.businessInfo, ...businessInfo };
  else if (businessInfo) next.businessInfo = businessInfo as BusinessInfoWire;
  return next;
};

export const evolveCustomer = (state: Customer, event: CustomerEvent): Customer => {
  switch (event.type) {
    case 'CustomerCreated': {
      const { customerId, platformId, customerType, profile, verificationStatus, createdAt } = event.data;
      return { status: 'Active', customerId, platformId, customerType, profile, verificationStatus, createdAt, updatedAt: createdAt, beneficialOwners: [] };
    }
    case 'CustomerUpdated':
      if (state.status === 'None') return state;
      return { ...state, profile: applyProfileChanges(state.profile, event.data.changes), updatedAt: event.data.updatedAt };
    case 'CustomerVerificationStatusChanged':
      if (state.status === 'None') return state;
      return { ...state, verificationStatus: event.data.to, updatedAt: event.data.changedAt };
    case 'CustomerDeleted':
      if (state.status === 'None') return state;
      return { ...state, status: 'Deleted', updatedAt: event.data.deletedAt };
    case 'BeneficialOwnerAdded':
    case 'BeneficialOwnerUpdated':
    case 'BeneficialOwnerKycStatusChanged':
      if (state.status === 'None') return state;
      return { ...state, beneficialOwners: evolveOwners(state.beneficialOwners, event) };
    case 'VerificationSubmitted':
    case 'VerificationDecided':
      if (state.status === 'None') return state;
      return { ...state, latestVerification: { verificationId: event.data.verificationId, verificationStatus: event.data.verificationStatus } };
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

export const customerDecider = { evolve: evolveCustomer, initialState: initialCustomer };
