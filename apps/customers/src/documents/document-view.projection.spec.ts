// The documents read model: a row per live document, replaced in place (created date kept) and
// removed on deletion; events of other kinds and a replacement it never saw the upload of change nothing.
import type { RecordedEvent } from '@corridor/event-store';
import { customerId, platformId } from '../customers/customer.fixtures';
import { documentId, documentUploaded, metadata, storedFile, uploadedAt } from './document.fixtures';
import { evolveDocumentView, renderDocument } from './document-view.projection';

const recorded = (event: { type: string; data: object }): RecordedEvent => event as unknown as RecordedEvent;
const replacedAt = '2026-03-02T09:00:00.000Z';
const replaced = recorded({
  type: 'DocumentReplaced',
  data: {
    customerId,
    platformId,
    documentId,
    documentHolder: customerId,
    metadata: metadata({ documentType: 'PASSPORT', side: 'BACK' }),
    file: { ...storedFile('documents/second'), fileName: 'new.png', contentType: 'image/png' },
    previousBlobKey: 'documents/first',
    replacedAt,
  },
});

describe('documents read model', () => {
  it('renders an uploaded document as the reference Document, without the file’s storage details', () => {
    const row = evolveDocumentView(null, recorded(documentUploaded()))!;
    expect(row).toMatchObject({ blobKey: 'documents/first', sizeBytes: 2048, contentType: 'application/pdf' });
    expect(renderDocument(row)).toEqual({
      id: documentId,
      documentHolder: customerId,
      documentType: 'CERTIFICATE_OF_INCORPORATION',
      country: 'US',
      fileName: 'incorporation.pdf',
      createdAt: uploadedAt,
      updatedAt: uploadedAt,
    });
  });

  it('keeps the created date through a replacement and takes the new file and metadata', () => {
    const row = evolveDocumentView(evolveDocumentView(null, recorded(documentUploaded())), replaced)!;
    expect(renderDocument(row)).toMatchObject({
      documentType: 'PASSPORT',
      side: 'BACK',
      fileName: 'new.png',
      createdAt: uploadedAt,
      updatedAt: replacedAt,
    });
    expect(row.blobKey).toBe('documents/second');
  });

  it('removes the row on deletion, and ignores a replacement of a document it never saw', () => {
    const row = evolveDocumentView(null, recorded(documentUploaded()));
    expect(
      evolveDocumentView(
        row,
        recorded({
          type: 'DocumentDeleted',
          data: { customerId, platformId, documentId, documentHolder: customerId, blobKey: 'documents/first', deletedAt: replacedAt },
        }),
      ),
    ).toBeNull();
    expect(evolveDocumentView(null, replaced)).toBeNull();
  });
});
