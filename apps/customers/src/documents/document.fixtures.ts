import type { DocumentMetadata, StoredDocumentFile } from '@corridor/contracts';
import type { CustomerEvent } from '../customers/customer';
import { customerId, later, platformId } from '../customers/customer.fixtures';
import type { DeleteDocument, ReplaceDocument, UploadDocument } from './upload-document';

export const documentId = 'Document:0196f1a0-0000-7000-8000-0000000000d1';
export const uploadedAt = '2026-03-01T10:45:00.000Z';
export const metadata = (overrides: Partial<DocumentMetadata> = {}): DocumentMetadata => ({
  documentType: 'CERTIFICATE_OF_INCORPORATION',
  country: 'US',
  ...overrides,
});
export const storedFile = (blobKey = 'documents/first'): StoredDocumentFile => ({
  blobKey,
  fileName: 'incorporation.pdf',
  size: 2048,
  sha256: 'ab'.repeat(32),
  contentType: 'application/pdf',
});

export const uploadCommand = (
  documentHolder: string,
  options: { platformId?: string; id?: string; requestFingerprint?: string; blobKey?: string } = {},
): UploadDocument => ({
  type: 'UploadDocument',
  data: {
    documentId: options.id ?? documentId,
    customerId,
    platformId: options.platformId ?? platformId,
    documentHolder,
    metadata: metadata(),
    file: storedFile(options.blobKey),
    ...(options.requestFingerprint !== undefined ? { requestFingerprint: options.requestFingerprint } : {}),
  },
  metadata: { now: later },
});
export const replaceCommand = (blobKey: string, options: { platformId?: string } = {}): ReplaceDocument => ({
  type: 'ReplaceDocument',
  data: {
    documentId,
    customerId,
    platformId: options.platformId ?? platformId,
    metadata: metadata({ documentType: 'ARTICLES_OF_INCORPORATION' }),
    file: storedFile(blobKey),
  },
  metadata: { now: later },
});
export const deleteCommand = (options: { platformId?: string } = {}): DeleteDocument => ({
  type: 'DeleteDocument',
  data: { documentId, customerId, platformId: options.platformId ?? platformId },
  metadata: { now: later },
});

export const documentUploaded = (documentHolder: string = customerId, requestFingerprint?: string): CustomerEvent => ({
  type: 'DocumentUploaded',
  data: {
    customerId,
    platformId,
    documentId,
    documentHolder,
    metadata: metadata(),
    file: storedFile(),
    ...(requestFingerprint !== undefined ? { requestFingerprint } : {}),
    uploadedAt,
  },
});
export const sentToProvider = (): CustomerEvent => ({
  type: 'VerificationSubmitted',
  data: {
    customerId,
    platformId,
    verificationId: 'Verification:0196f1a0-0000-7000-8000-0000000000e1',
    customerType: 'BUSINESS',
    verificationStatus: 'IN_PROGRESS',
    errors: [],
    submittedAt: uploadedAt,
  },
});
export const sentBackForErrors = (): CustomerEvent => ({
  type: 'VerificationSubmitted',
  data: {
    customerId,
    platformId,
    verificationId: 'Verification:0196f1a0-0000-7000-8000-0000000000e2',
    customerType: 'BUSINESS',
    verificationStatus: 'RESOLVE_ERRORS',
    errors: [],
    submittedAt: uploadedAt,
  },
});
