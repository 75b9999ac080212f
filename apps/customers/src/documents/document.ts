import type { DocumentMetadata, Event, StoredDocumentFile } from '@corridor/contracts';

// A document belongs to a customer or to one of a business's beneficial owners, and is recorded in
// that customer's stream (docs/decisions/0011): a verification is then decided on exactly the
// documents the append saw, and "submitted documents cannot be deleted" holds under races because
// a deletion and a submission append at the same version. Only the file's blob key and what the
// gateway measured are recorded; the content lives in the blob store.

export type DocumentOnRecord = {
  documentId: string;
  documentHolder: string;
  metadata: DocumentMetadata;
  file: StoredDocumentFile;
  /** True once a verification that went to the provider included it; then it cannot be deleted. */
  submitted: boolean;
  /** The gateway's fingerprint of the upload that made it, which a retry under its Idempotency-Key must match (not on the wire). */
  requestFingerprint?: string;
  createdAt: string;
  updatedAt: string;
};

export type DocumentUploaded = Event<
  'DocumentUploaded',
  {
    customerId: string;
    platformId: string;
    documentId: string;
    documentHolder: string;
    metadata: DocumentMetadata;
    file: StoredDocumentFile;
    /** When the upload came with an Idempotency-Key (the document's id is then derived from it; decision 0028). */
    requestFingerprint?: string;
    uploadedAt: string;
  }
>;
/** A new file and metadata for the same document (typically after a rejection); it is not submitted until the next verification. */
export type DocumentReplaced = Event<
  'DocumentReplaced',
  {
    customerId: string;
    platformId: string;
    documentId: string;
    documentHolder: string;
    metadata: DocumentMetadata;
    file: StoredDocumentFile;
    previousBlobKey: string;
    replacedAt: string;
  }
>;
export type DocumentDeleted = Event<
  'DocumentDeleted',
  { customerId: string; platformId: string; documentId: string; documentHolder: string; blobKey: string; deletedAt: string }
>;
export type DocumentEvent = DocumentUploaded | DocumentReplaced | DocumentDeleted;

export const documentEventTypes: readonly DocumentEvent['type'][] = ['DocumentUploaded', 'DocumentReplaced', 'DocumentDeleted'];

/** Folds one document event into a customer's documents (the aggregate's and the read model's shared step). */
export const evolveDocuments = (documents: readonly DocumentOnRecord[], event: DocumentEvent): DocumentOnRecord[] => {
  switch (event.type) {
    case 'DocumentUploaded': {
      const { documentId, documentHolder, metadata, file, requestFingerprint, uploadedAt } = event.data;
      if (documents.some((document) => document.documentId === documentId)) return [...documents];
      const fingerprint = requestFingerprint !== undefined ? { requestFingerprint } : {};
      return [
        ...documents,
        { documentId, documentHolder, metadata, file, submitted: false, ...fingerprint, createdAt: uploadedAt, updatedAt: uploadedAt },
      ];
    }
    case 'DocumentReplaced':
      return documents.map((document) =>
        document.documentId === event.data.documentId
          ? { ...document, metadata: event.data.metadata, file: event.data.file, submitted: false, updatedAt: event.data.replacedAt }
          : document,
      );
    case 'DocumentDeleted':
      return documents.filter((document) => document.documentId !== event.data.documentId);
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

/** Every document on file when a verification goes to the provider is part of that submission. */
export const markSubmitted = (documents: readonly DocumentOnRecord[]): DocumentOnRecord[] =>
  documents.map((document) => ({ ...document, submitted: true }));
