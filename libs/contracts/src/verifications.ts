// NATS message data of KYC/KYB verifications and beneficial owners (customers service). Replies
// are the reference's Verification and BeneficialOwner wire objects.
import type { AddressWire, KycStatus } from './customers';

export const verificationStatuses = [
  'RESOLVE_ERRORS',
  'PENDING_MANUAL_REVIEW',
  'IN_PROGRESS',
  'APPROVED',
  'REJECTED',
  'READY_FOR_VERIFICATION',
] as const;
export type VerificationStatus = (typeof verificationStatuses)[number];

export type VerificationErrorType =
  | 'MISSING_FIELD'
  | 'INVALID_FIELD'
  | 'MISSING_LEGAL_PRESENCE_DOCUMENT'
  | 'MISSING_CONTROL_STRUCTURE_DOCUMENT'
  | 'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT'
  | 'MISSING_PROOF_OF_ADDRESS_DOCUMENT'
  | 'MISSING_IDENTITY_DOCUMENT'
  | 'INVALID_DOCUMENT'
  | 'EXPIRED_DOCUMENT'
  | 'POOR_QUALITY_DOCUMENT'
  | 'SUSPECTED_FRAUD_DOCUMENT'
  | 'WRONG_DOCUMENT_TYPE'
  | 'INCOMPLETE_DOCUMENT'
  | 'UNREADABLE_DOCUMENT'
  | 'DOCUMENT_VERIFICATION_FAILED'
  | 'APPLICANT_SANCTIONED'
  | 'APPLICANT_FRAUD'
  | 'APPLICANT_CRIMINAL_RECORD'
  | 'APPLICANT_REJECTED'
  | 'MISSING_BENEFICIAL_OWNER';

export type DocumentType =
  | 'PASSPORT'
  | 'DRIVERS_LICENSE'
  | 'NATIONAL_ID'
  | 'PROOF_OF_ADDRESS'
  | 'BANK_STATEMENT'
  | 'TAX_RETURN'
  | 'CERTIFICATE_OF_INCORPORATION'
  | 'ARTICLES_OF_INCORPORATION'
  | 'ARTICLES_OF_ASSOCIATION'
  | 'STATE_REGISTRY_EXCERPT'
  | 'GOOD_STANDING_CERTIFICATE'
  | 'INFORMATION_STATEMENT'
  | 'INCUMBENCY_CERTIFICATE'
  | 'BUSINESS_LICENSE'
  | 'SHAREHOLDER_REGISTER'
  | 'POWER_OF_ATTORNEY'
  | 'UTILITY_BILL'
  | 'ELECTRICITY_BILL'
  | 'RENT_OR_LEASE_AGREEMENT'
  | 'DIRECTOR_REGISTRY'
  | 'TRUST_AGREEMENT'
  | 'STATE_COMPANY_REGISTRY'
  | 'PARTNERSHIP_CONTROL_AGREEMENT'
  | 'PARTNERSHIP_AGREEMENT'
  | 'SELFIE'
  | 'OTHER';

export type VerificationErrorWire = {
  resourceId: string;
  type: VerificationErrorType;
  /** Dot path, present for MISSING_FIELD and INVALID_FIELD (e.g. customer.address.line1, personalInfo.idType). */
  field?: string;
  acceptedDocumentTypes?: DocumentType[];
  reason: string;
};

export type VerificationWire = {
  id: string;
  customerId: string;
  verificationStatus: VerificationStatus;
  errors: VerificationErrorWire[];
  createdAt: string;
  updatedAt?: string;
};

export type SubmitVerificationData = { customerId: string };
export type VerificationIdData = { verificationId: string };
export type ListVerificationsData = { customerId?: string; verificationStatus?: VerificationStatus; limit: number; cursor?: string };
/** Reply: VerificationWire as of that position of the customer's stream, which records the verification (webhook payloads). */
export type RenderVerificationAtData = { customerId: string; verificationId: string; streamPosition: number };

export const beneficialOwnerRoles = ['UBO', 'DIRECTOR', 'COMPANY_OFFICER', 'CONTROL_PERSON', 'TRUSTEE', 'GENERAL_PARTNER'] as const;
export type BeneficialOwnerRole = (typeof beneficialOwnerRoles)[number];
export const identificationTypes = ['SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID'] as const;
export type IdentificationType = (typeof identificationTypes)[number];

export type BeneficialOwnerPersonalInfoWire = {
  firstName: string;
  middleName?: string;
  lastName: string;
  birthDate: string;
  nationality: string;
  email?: string;
  phoneNumber?: string;
  address: AddressWire;
  idType: IdentificationType;
  identifier: string;
  countryOfIssuance?: string;
};

export type BeneficialOwnerWire = {
  id: string;
  customerId: string;
  roles: BeneficialOwnerRole[];
  ownershipPercentage: number;
  personalInfo: BeneficialOwnerPersonalInfoWire;
  kycStatus: KycStatus;
  createdAt: string;
  updatedAt?: string;
};

export type CreateBeneficialOwnerData = {
  customerId: string;
  roles: BeneficialOwnerRole[];
  ownershipPercentage: number;
  personalInfo: BeneficialOwnerPersonalInfoWire;
};
export type BeneficialOwnerChanges = {
  roles?: BeneficialOwnerRole[];
  ownershipPercentage?: number;
  personalInfo?: Partial<BeneficialOwnerPersonalInfoWire>;
};
export type UpdateBeneficialOwnerData = { beneficialOwnerId: string; patch: BeneficialOwnerChanges };
export type BeneficialOwnerIdData = { beneficialOwnerId: string };
export type ListBeneficialOwnersData = { customerId: string; limit: number; cursor?: string };
