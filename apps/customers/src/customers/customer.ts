import type { AddressWire, BusinessInfoWire, CustomerType, Event, KycStatus } from '@corridor/contracts';
import { type BeneficialOwner, type BeneficialOwnerEvent, evolveOwners } from '../beneficial-owners/beneficial-owner';
import { type DocumentEvent, type DocumentOnRecord, evolveDocuments, markSubmitted } from '../documents/document';
import { evolveKycLinks, type KycLinkEvent, type KycLinkOnRecord } from '../kyc-links/kyc-link';
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
  {
    customerId: string;
    platformId: string;
    customerType: CustomerType;
    profile: CustomerProfile;
    verificationStatus: KycStatus;
    createdAt: string;
    /** The create's request fingerprint when it came under an Idempotency-Key (decision 0028): a retry must match it. */
    requestFingerprint?: string;
  }
>;
export type CustomerUpdated = Event<
  'CustomerUpdated',
  { customerId: string; platformId: string; changes: ProfileChanges; updatedAt: string }
>;
/** KYC for individuals, KYB for businesses; announced separately because webhooks follow it. */
export type CustomerVerificationStatusChanged = Event<
  'CustomerVerificationStatusChanged',
  {
    customerId: string;
    platformId: string;
    customerType: CustomerType;
    from: KycStatus | null;
    to: KycStatus;
    changedAt: string;
    verificationId?: string;
  }
>;
export type CustomerDeleted = Event<'CustomerDeleted', { customerId: string; platformId: string; deletedAt: string }>;
export type CustomerEvent =
  | CustomerCreated
  | CustomerUpdated
  | CustomerVerificationStatusChanged
  | CustomerDeleted
  | BeneficialOwnerEvent
  | VerificationEvent
  | DocumentEvent
  | KycLinkEvent;

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
  /** The customer's and its owners' documents on file (decision 0011). */
  documents: DocumentOnRecord[];
  /** Hosted KYC links issued for the customer, used or not. */
  kycLinks: KycLinkOnRecord[];
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
      return {
        status: 'Active',
        customerId,
        platformId,
        customerType,
        profile,
        verificationStatus,
        createdAt,
        updatedAt: createdAt,
        beneficialOwners: [],
        documents: [],
        kycLinks: [],
      };
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
    case 'VerificationDecided': {
      if (state.status === 'None') return state;
      const latestVerification = { verificationId: event.data.verificationId, verificationStatus: event.data.verificationStatus };
      // A submission that goes to the provider takes every document on file with it.
      const sent = event.type === 'VerificationSubmitted' && event.data.verificationStatus === 'IN_PROGRESS';
      return { ...state, latestVerification, documents: sent ? markSubmitted(state.documents ?? []) : state.documents };
    }
    case 'DocumentUploaded':
    case 'DocumentReplaced':
    case 'DocumentDeleted':
      if (state.status === 'None') return state;
      return { ...state, documents: evolveDocuments(state.documents ?? [], event) };
    case 'KycLinkIssued':
    case 'KycLinkUsed':
      if (state.status === 'None') return state;
      return { ...state, kycLinks: evolveKycLinks(state.kycLinks ?? [], event) };
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

export const customerDecider = { evolve: evolveCustomer, initialState: initialCustomer };
