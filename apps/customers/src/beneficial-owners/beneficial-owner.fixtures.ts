import type { BeneficialOwnerPersonalInfoWire, CreateBeneficialOwnerData, KycStatus } from '@corridor/contracts';
import type { CustomerEvent } from '../customers/customer';
import { createdAt, customerId, platformId } from '../customers/customer.fixtures';
import type { AddBeneficialOwner } from './add-beneficial-owner';

export const ownerId = 'BeneficialOwner:0196f1a0-0000-7000-8000-0000000000b1';
export const secondOwnerId = 'BeneficialOwner:0196f1a0-0000-7000-8000-0000000000b2';
export const addedAt = '2026-03-01T10:30:00.000Z';

export const personalInfo = (overrides: Partial<BeneficialOwnerPersonalInfoWire> = {}): BeneficialOwnerPersonalInfoWire => ({
  firstName: 'Jane',
  lastName: 'Smith',
  birthDate: '1978-06-15',
  nationality: 'US',
  address: { line1: '1 Market St', postalCode: '94105', country: 'US' },
  idType: 'SSN',
  identifier: '123-45-6789',
  ...overrides,
});

export const businessCreated = (businessInfo: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): CustomerEvent => ({
  type: 'CustomerCreated',
  data: {
    customerId,
    platformId,
    customerType: 'BUSINESS',
    profile: {
      platformCustomerId: 'pc-b',
      umaAddress: '$acme@acme.sandbox.uma.money',
      currencies: ['USD'],
      businessInfo: { legalName: 'Acme Corp', incorporatedOn: '2015-06-01', taxId: '12-3456789', ...businessInfo } as never,
      ...extra,
    },
    verificationStatus: 'UNVERIFIED',
    createdAt,
  },
});

export const ownerAdded = (
  options: {
    id?: string;
    percentage?: number;
    roles?: string[];
    kycStatus?: KycStatus;
    info?: Partial<BeneficialOwnerPersonalInfoWire>;
    requestFingerprint?: string;
  } = {},
): CustomerEvent => ({
  type: 'BeneficialOwnerAdded',
  data: {
    customerId,
    platformId,
    beneficialOwnerId: options.id ?? ownerId,
    roles: (options.roles ?? ['UBO', 'CONTROL_PERSON']) as never,
    ownershipPercentage: options.percentage ?? 60,
    personalInfo: personalInfo(options.info),
    kycStatus: options.kycStatus ?? 'APPROVED',
    ...(options.requestFingerprint !== undefined ? { requestFingerprint: options.requestFingerprint } : {}),
    addedAt,
  },
});

export const createOwnerRequest = (overrides: Partial<CreateBeneficialOwnerData> = {}): CreateBeneficialOwnerData => ({
  customerId,
  roles: ['UBO', 'CONTROL_PERSON'],
  ownershipPercentage: 60,
  personalInfo: personalInfo(),
  ...overrides,
});

export const addOwnerCommand = (
  request: CreateBeneficialOwnerData,
  options: { id?: string; platformId?: string; kycStatus?: KycStatus; requestFingerprint?: string } = {},
): AddBeneficialOwner => ({
  type: 'AddBeneficialOwner',
  data: {
    beneficialOwnerId: options.id ?? ownerId,
    platformId: options.platformId ?? platformId,
    request,
    kycStatus: options.kycStatus ?? 'APPROVED',
    ...(options.requestFingerprint !== undefined ? { requestFingerprint: options.requestFingerprint } : {}),
  },
  metadata: { now: new Date(addedAt) },
});
