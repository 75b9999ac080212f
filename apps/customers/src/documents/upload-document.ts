import {
  type Command,
  DomainError,
  type DocumentMetadata,
  invalidInput,
  requireSameRequest,
  type StoredDocumentFile,
} from '@corridor/contracts';
import type { Customer, CustomerEvent, ExistingCustomer } from '../customers/customer';
import { requireLiveCustomer } from '../customers/update-customer';
import type { DocumentOnRecord } from './document';

export type UploadDocument = Command<
  'UploadDocument',
  {
    documentId: string;
    customerId: string;
    platformId: string;
    documentHolder: string;
    metadata: DocumentMetadata;
    file: StoredDocumentFile;
    /** The upload's fingerprint, when it has an Idempotency-Key (the document id is then derived from the key). */
    requestFingerprint?: string;
  },
  { now: Date }
>;
export type ReplaceDocument = Command<
  'ReplaceDocument',
  { documentId: string; customerId: string; platformId: string; metadata: DocumentMetadata; file: StoredDocumentFile },
  { now: Date }
>;
export type DeleteDocument = Command<'DeleteDocument', { documentId: string; customerId: string; platformId: string }, { now: Date }>;

/** A customer and its owners need a handful of documents; the bound keeps a runaway client from growing the stream without end. */
export const MAX_DOCUMENTS_PER_CUSTOMER = 100;

export const documentNotFound = (documentId: string) =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Document ${documentId} was not found.`);
export const holderNotFound = (documentHolder: string) =>
  new DomainError(
    'REFERENCE_NOT_FOUND',
    'not_found',
    `Document holder ${documentHolder} was not found: name a customer or a beneficial owner of this platform.`,
    {
      field: 'documentHolder',
    },
  );

/** The holder is the customer itself or one of its beneficial owners, of the asking platform. */
const requireHolder = (customer: Customer, customerId: string, platformId: string, documentHolder: string): ExistingCustomer => {
  if (customer.status === 'None' || customer.platformId !== platformId) throw holderNotFound(documentHolder);
  const existing = requireLiveCustomer(customer, customerId, platformId);
  if (documentHolder !== customerId && !existing.beneficialOwners.some((owner) => owner.beneficialOwnerId === documentHolder))
    throw holderNotFound(documentHolder);
  return existing;
};

const requireDocument = (
  customer: Customer,
  customerId: string,
  platformId: string,
  documentId: string,
): [ExistingCustomer, DocumentOnRecord] => {
  if (customer.status === 'None' || customer.platformId !== platformId) throw documentNotFound(documentId);
  const existing = requireLiveCustomer(customer, customerId, platformId);
  const document = existing.documents.find((item) => item.documentId === documentId);
  if (!document) throw documentNotFound(documentId);
  return [existing, document];
};

export const uploadDocument = (command: UploadDocument, customer: Customer): CustomerEvent[] => {
  const { documentId, customerId, platformId, documentHolder, metadata, file, requestFingerprint } = command.data;
  const existing = requireHolder(customer, customerId, platformId, documentHolder);
  // The id is derived from the Idempotency-Key: a document under it is this upload again (a retry,
  // nothing left to do) or another upload under a used key, a 409 (decision 0028).
  const earlier = existing.documents.find((document) => document.documentId === documentId);
  if (earlier) {
    requireSameRequest(earlier.requestFingerprint, requestFingerprint, documentId);
    return [];
  }
  if (existing.documents.length >= MAX_DOCUMENTS_PER_CUSTOMER) {
    throw invalidInput(
      `Customer ${customerId} and its owners already have ${MAX_DOCUMENTS_PER_CUSTOMER} documents, the most one customer may have; ` +
        `delete or replace one.`,
      {
        field: 'documentHolder',
      },
    );
  }
  const fingerprint = requestFingerprint !== undefined ? { requestFingerprint } : {};
  return [
    {
      type: 'DocumentUploaded',
      data: {
        customerId,
        platformId,
        documentId,
        documentHolder,
        metadata,
        file,
        ...fingerprint,
        uploadedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};

export const replaceDocument = (command: ReplaceDocument, customer: Customer): CustomerEvent[] => {
  const { documentId, customerId, platformId, metadata, file } = command.data;
  const [, document] = requireDocument(customer, customerId, platformId, documentId);
  // A retried replacement (same blob) has nothing left to do.
  if (document.file.blobKey === file.blobKey) return [];
  return [
    {
      type: 'DocumentReplaced',
      data: {
        customerId,
        platformId,
        documentId,
        documentHolder: document.documentHolder,
        metadata,
        file,
        previousBlobKey: document.file.blobKey,
        replacedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};

export const deleteDocument = (command: DeleteDocument, customer: Customer): CustomerEvent[] => {
  const { documentId, customerId, platformId } = command.data;
  const [, document] = requireDocument(customer, customerId, platformId, documentId);
  if (document.submitted) {
    throw new DomainError(
      'CONFLICT',
      'conflict',
      `Document ${documentId} was submitted for verification and can no longer be deleted; replace it with PUT /documents/${documentId} ` +
        `instead.`,
      {
        documentId,
      },
    );
  }
  return [
    {
      type: 'DocumentDeleted',
      data: {
        customerId,
        platformId,
        documentId,
        documentHolder: document.documentHolder,
        blobKey: document.file.blobKey,
        deletedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};
