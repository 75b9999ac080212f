// Pins down whose documents may be recorded (the customer or one of its owners, of the asking
// platform), that a replacement swaps the file and is no longer "submitted", and that a document
// sent to the provider with a verification cannot be deleted.
import { deciderSpec } from '@corridor/testing';
import { customerDecider } from '../customers/customer';
import { customerId, deleted, later, otherPlatformId, platformId } from '../customers/customer.fixtures';
import { businessCreated, ownerAdded, ownerId, secondOwnerId } from '../beneficial-owners/beneficial-owner.fixtures';
import {
  deleteCommand,
  documentId,
  documentUploaded,
  metadata,
  replaceCommand,
  sentBackForErrors,
  sentToProvider,
  storedFile,
  uploadCommand,
} from './document.fixtures';
import { deleteDocument, replaceDocument, uploadDocument } from './upload-document';

const at = later.toISOString();

describe('UploadDocument', () => {
  const { given } = deciderSpec({ decide: uploadDocument, ...customerDecider });

  it('records a document of the customer itself, with the file the gateway stored', () =>
    given([businessCreated()])
      .when(uploadCommand(customerId))
      .then([
        {
          type: 'DocumentUploaded',
          data: {
            customerId,
            platformId,
            documentId,
            documentHolder: customerId,
            metadata: metadata(),
            file: storedFile(),
            uploadedAt: at,
          },
        },
      ]));

  it('records a document of one of the business’s owners in the business’s stream', () =>
    given([businessCreated(), ownerAdded()])
      .when(uploadCommand(ownerId))
      .then([
        expect.objectContaining({ type: 'DocumentUploaded', data: expect.objectContaining({ documentHolder: ownerId, customerId }) }),
      ]));

  it('refuses an owner the business does not have with 404 naming documentHolder', () =>
    given([businessCreated(), ownerAdded()])
      .when(uploadCommand(secondOwnerId))
      .thenThrows((error) =>
        expect(error).toMatchObject({ code: 'REFERENCE_NOT_FOUND', status: 404, details: { field: 'documentHolder' } }),
      ));

  it('refuses another platform’s customer exactly like an unknown one (404)', () =>
    given([businessCreated()])
      .when(uploadCommand(customerId, { platformId: otherPlatformId }))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'REFERENCE_NOT_FOUND', status: 404 })));

  it('refuses a customer that does not exist (404)', () =>
    given([])
      .when(uploadCommand(customerId))
      .thenThrows((error) => expect(error).toMatchObject({ status: 404 })));

  it('refuses a deleted customer (410)', () =>
    given([businessCreated(), deleted()])
      .when(uploadCommand(customerId))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'CUSTOMER_DELETED', status: 410 })));

  describe('under a used Idempotency-Key (the document id is derived from it)', () => {
    const first = 'd1'.repeat(32);
    it('keeps the upload’s fingerprint with the document', () =>
      given([businessCreated()])
        .when(uploadCommand(customerId, { requestFingerprint: first }))
        .then([expect.objectContaining({ type: 'DocumentUploaded', data: expect.objectContaining({ requestFingerprint: first }) })]));
    it('records nothing when the same upload is retried (its new copy of the file is not taken)', () =>
      given([businessCreated(), documentUploaded(customerId, first)])
        .when(uploadCommand(customerId, { requestFingerprint: first, blobKey: 'documents/retry' }))
        .then([]));
    it('refuses another upload under the key with a 409 naming the document', () =>
      given([businessCreated(), documentUploaded(customerId, first)])
        .when(uploadCommand(customerId, { requestFingerprint: 'e2'.repeat(32) }))
        .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT', status: 409, details: { resourceId: documentId } })));
    it('refuses an upload without a key whose id names a document', () =>
      given([businessCreated(), documentUploaded()])
        .when(uploadCommand(customerId))
        .thenThrows((error) => expect(error).toMatchObject({ status: 409 })));
  });
});

describe('ReplaceDocument', () => {
  const { given } = deciderSpec({ decide: replaceDocument, ...customerDecider });

  it('swaps the file and the metadata, naming the file it lets go of', () =>
    given([businessCreated(), documentUploaded()])
      .when(replaceCommand('documents/second'))
      .then([
        {
          type: 'DocumentReplaced',
          data: {
            customerId,
            platformId,
            documentId,
            documentHolder: customerId,
            metadata: metadata({ documentType: 'ARTICLES_OF_INCORPORATION' }),
            file: storedFile('documents/second'),
            previousBlobKey: 'documents/first',
            replacedAt: at,
          },
        },
      ]));

  it('records nothing when the same replacement is retried', () =>
    given([businessCreated(), documentUploaded()]).when(replaceCommand('documents/first')).then([]));

  it('is 404 for a document that is not on file, or of another platform', () => {
    given([businessCreated()])
      .when(replaceCommand('documents/second'))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'REFERENCE_NOT_FOUND', status: 404 }));
    given([businessCreated(), documentUploaded()])
      .when(replaceCommand('documents/second', { platformId: otherPlatformId }))
      .thenThrows((error) => expect(error).toMatchObject({ code: 'REFERENCE_NOT_FOUND', status: 404 }));
  });
});

describe('DeleteDocument', () => {
  const { given } = deciderSpec({ decide: deleteDocument, ...customerDecider });

  it('deletes a document no verification has sent to the provider, naming its file', () =>
    given([businessCreated(), documentUploaded(), sentBackForErrors()])
      .when(deleteCommand())
      .then([
        {
          type: 'DocumentDeleted',
          data: { customerId, platformId, documentId, documentHolder: customerId, blobKey: 'documents/first', deletedAt: at },
        },
      ]));

  it('refuses (409) a document that went to the provider with a verification', () =>
    given([businessCreated(), documentUploaded(), sentToProvider()])
      .when(deleteCommand())
      .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT', status: 409, details: { documentId } })));

  it('deletes a submitted document again once it was replaced (the new file was never submitted)', () =>
    given([
      businessCreated(),
      documentUploaded(),
      sentToProvider(),
      {
        type: 'DocumentReplaced',
        data: {
          customerId,
          platformId,
          documentId,
          documentHolder: customerId,
          metadata: metadata(),
          file: storedFile('documents/second'),
          previousBlobKey: 'documents/first',
          replacedAt: at,
        },
      },
    ])
      .when(deleteCommand())
      .then([expect.objectContaining({ type: 'DocumentDeleted', data: expect.objectContaining({ blobKey: 'documents/second' }) })]));

  it('is 404 once deleted, and for another platform', () => {
    given([
      businessCreated(),
      documentUploaded(),
      {
        type: 'DocumentDeleted',
        data: { customerId, platformId, documentId, documentHolder: customerId, blobKey: 'documents/first', deletedAt: at },
      },
    ])
      .when(deleteCommand())
      .thenThrows((error) => expect(error).toMatchObject({ status: 404 }));
    given([businessCreated(), documentUploaded()])
      .when(deleteCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => expect(error).toMatchObject({ status: 404 }));
  });
});
