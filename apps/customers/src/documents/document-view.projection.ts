import { EntitySchema } from '@mikro-orm/core';
import type { DocumentContentType, DocumentSide, DocumentType, DocumentWire } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type DocumentEvent, documentEventTypes } from './document';

/** One document as GET /documents/{id} and the list return it, with where its file is. */
export type DocumentRow = {
  id: string;
  customerId: string;
  platformId: string;
  documentHolder: string;
  documentType: DocumentType;
  side: DocumentSide | null;
  country: string;
  documentNumber: string | null;
  issuingAuthority: string | null;
  fileName: string;
  blobKey: string;
  sizeBytes: number;
  sha256: string;
  contentType: DocumentContentType;
  createdAt: Date;
  updatedAt: Date;
};

export const DocumentEntity = new EntitySchema<DocumentRow>({
  name: 'DocumentRow',
  tableName: 'documents',
  properties: {
    id: { type: 'string', primary: true },
    customerId: { type: 'string' },
    platformId: { type: 'string' },
    documentHolder: { type: 'string' },
    documentType: { type: 'string' },
    side: { type: 'string', nullable: true },
    country: { type: 'string' },
    documentNumber: { type: 'string', nullable: true },
    issuingAuthority: { type: 'string', nullable: true },
    fileName: { type: 'string' },
    blobKey: { type: 'string' },
    sizeBytes: { type: 'integer' },
    sha256: { type: 'string' },
    contentType: { type: 'string' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const evolveDocumentView = (row: DocumentRow | null, recorded: RecordedEvent): DocumentRow | null => {
  const event = recorded as unknown as DocumentEvent;
  switch (event.type) {
    case 'DocumentUploaded':
    case 'DocumentReplaced': {
      if (event.type === 'DocumentReplaced' && !row) return row;
      const { documentId, customerId, platformId, documentHolder, metadata, file } = event.data;
      const at = new Date(event.type === 'DocumentUploaded' ? event.data.uploadedAt : event.data.replacedAt);
      return {
        id: documentId,
        customerId,
        platformId,
        documentHolder,
        documentType: metadata.documentType,
        side: metadata.side ?? null,
        country: metadata.country,
        documentNumber: metadata.documentNumber ?? null,
        issuingAuthority: metadata.issuingAuthority ?? null,
        fileName: file.fileName,
        blobKey: file.blobKey,
        sizeBytes: file.size,
        sha256: file.sha256,
        contentType: file.contentType,
        createdAt: row?.createdAt ?? at,
        updatedAt: at,
      };
    }
    case 'DocumentDeleted':
      return null;
    default:
      return row;
  }
};

export const documentViewProjection: Projection<DocumentRow> = {
  name: 'documents',
  version: 1,
  canHandle: documentEventTypes,
  entity: DocumentEntity,
  keyOf: (event) => String(event.data['documentId']),
  evolve: evolveDocumentView,
};

export const renderDocument = (row: DocumentRow): DocumentWire => ({
  id: row.id,
  documentHolder: row.documentHolder,
  documentType: row.documentType,
  ...(row.side ? { side: row.side } : {}),
  country: row.country,
  ...(row.documentNumber ? { documentNumber: row.documentNumber } : {}),
  ...(row.issuingAuthority ? { issuingAuthority: row.issuingAuthority } : {}),
  fileName: row.fileName,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
