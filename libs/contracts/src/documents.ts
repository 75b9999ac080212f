// NATS message data of verification documents and hosted KYC links (customers service). Replies
// are the reference's Document and KycLinkResponse wire objects. The file itself never crosses
// NATS: the gateway streams it into the blob store and sends only what it measured.
import type { DocumentType } from './verifications';

export const documentTypes = [
  'PASSPORT',
  'DRIVERS_LICENSE',
  'NATIONAL_ID',
  'PROOF_OF_ADDRESS',
  'BANK_STATEMENT',
  'TAX_RETURN',
  'CERTIFICATE_OF_INCORPORATION',
  'ARTICLES_OF_INCORPORATION',
  'ARTICLES_OF_ASSOCIATION',
  'STATE_REGISTRY_EXCERPT',
  'GOOD_STANDING_CERTIFICATE',
  'INFORMATION_STATEMENT',
  'INCUMBENCY_CERTIFICATE',
  'BUSINESS_LICENSE',
  'SHAREHOLDER_REGISTER',
  'POWER_OF_ATTORNEY',
  'UTILITY_BILL',
  'ELECTRICITY_BILL',
  'RENT_OR_LEASE_AGREEMENT',
  'DIRECTOR_REGISTRY',
  'TRUST_AGREEMENT',
  'STATE_COMPANY_REGISTRY',
  'PARTNERSHIP_CONTROL_AGREEMENT',
  'PARTNERSHIP_AGREEMENT',
  'SELFIE',
  'OTHER',
] as const satisfies readonly DocumentType[];
export const documentSides = ['FRONT', 'BACK'] as const;
export type DocumentSide = (typeof documentSides)[number];
/** The file types a document may be, told apart by their first bytes. */
export type DocumentContentType = 'application/pdf' | 'image/jpeg' | 'image/png';

export type DocumentWire = {
  id: string;
  documentHolder: string;
  documentType: DocumentType;
  side?: DocumentSide;
  country: string;
  documentNumber?: string;
  issuingAuthority?: string;
  fileName: string;
  createdAt: string;
  updatedAt?: string;
};

/** The metadata fields of an upload or a replacement (multipart fields other than `file`). */
export type DocumentMetadata = {
  documentType: DocumentType;
  side?: DocumentSide;
  country: string;
  documentNumber?: string;
  issuingAuthority?: string;
};

/** What the gateway measured while streaming the file into the blob store. */
export type StoredDocumentFile = { blobKey: string; fileName: string; size: number; sha256: string; contentType: DocumentContentType };

export type UploadDocumentData = { documentHolder: string; metadata: DocumentMetadata; file: StoredDocumentFile };
export type ReplaceDocumentData = { documentId: string; metadata: DocumentMetadata; file: StoredDocumentFile };
export type DocumentIdData = { documentId: string };
export type ListDocumentsData = { documentHolder?: string; limit: number; cursor?: string };

export const kycProviders = ['SUMSUB'] as const;
export type KycProvider = (typeof kycProviders)[number];

/** The gateway composes kycUrl from the token; the customers service never knows the public address. */
export type KycLinkIssued = { token: string; expiresAt: string; provider: KycProvider };
export type KycLinkWire = { kycUrl: string; expiresAt: string; provider: KycProvider; token?: string };
export type CreateKycLinkData = { customerId: string; redirectUri?: string };

/** What the hosted page shows; looked up by the token alone (the customer's browser has no API token). */
export type KycLinkPageData = { token: string };
export type KycLinkPage = {
  customerId: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  expiresAt: string;
  state: 'OPEN' | 'USED' | 'EXPIRED';
  redirectUri?: string;
};
export const kycLinkDecisions = ['APPROVE', 'REJECT'] as const;
export type KycLinkDecision = (typeof kycLinkDecisions)[number];
export type CompleteKycLinkData = { token: string; decision: KycLinkDecision };
export type KycLinkCompleted = { redirectUri?: string; kycStatus: string };
