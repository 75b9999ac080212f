import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { FilterQuery } from '@mikro-orm/core';
import { BLOB_STORE, type BlobStore } from '@corridor/blob-store';
import {
  CLOCK,
  type Clock,
  DomainError,
  type DocumentIdData,
  type DocumentWire,
  idempotencyScopeOf,
  idForRequest,
  type ListDocumentsData,
  type Page,
  type ReplaceDocumentData,
  type RequestContext,
  type ServiceRequest,
  subjects,
  type UploadDocumentData,
} from '@corridor/contracts';
import { EventSourcing, findPage, isWrongExpectedVersionError } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { BeneficialOwnerEntity } from '../beneficial-owners/beneficial-owner-view.projection';
import { customerDecider } from '../customers/customer';
import { DocumentEntity, type DocumentRow, renderDocument } from './document-view.projection';
import { deleteDocument, documentNotFound, holderNotFound, replaceDocument, uploadDocument } from './upload-document';

const busy = (customerId: string) =>
  new DomainError(
    'CONFLICT',
    'conflict',
    `Customer ${customerId} was being changed by other requests at the same moment; retry the request.`,
  );

/**
 * Documents are appended to their holder's customer stream. The file is already in the blob store
 * when a command arrives (the gateway streamed it there); a file this service stops referring to
 * (replaced or deleted) is removed from the store after the append that lets go of it.
 */
@Controller()
export class DocumentsController {
  private readonly logger = createLogger('customers:documents');

  constructor(
    private readonly eventSourcing: EventSourcing,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.customers.document.upload)
  async upload(@Payload() request: ServiceRequest<UploadDocumentData>): Promise<DocumentWire> {
    const { context, data } = request;
    const customerId = await this.customerOfHolder(context, data.documentHolder);
    // Derived from the Idempotency-Key: a retry after a lost answer finds the document the first attempt recorded.
    const documentId = idForRequest('Document', idempotencyScopeOf(context), 'upload-document', context.idempotencyKey);
    const fingerprint = context.requestFingerprint !== undefined ? { requestFingerprint: context.requestFingerprint } : {};
    const command = {
      type: 'UploadDocument' as const,
      data: {
        documentId,
        customerId,
        platformId: context.platformId,
        documentHolder: data.documentHolder,
        metadata: data.metadata,
        file: data.file,
        ...fingerprint,
      },
      metadata: { now: this.clock.now() },
    };
    const { events } = await this.write(customerId, () =>
      this.eventSourcing.handle(customerId, customerDecider, (customer) => uploadDocument(command, customer), context),
    );
    // A retry recorded nothing: the document keeps the first attempt's file, and this attempt's copy goes.
    if (events.length === 0) await this.discard(data.file.blobKey);
    return renderDocument(await this.row(context, documentId));
  }

  @MessagePattern(subjects.customers.document.replace)
  async replace(@Payload() request: ServiceRequest<ReplaceDocumentData>): Promise<DocumentWire> {
    const { context, data } = request;
    const current = await this.row(context, data.documentId);
    const command = {
      type: 'ReplaceDocument' as const,
      data: {
        documentId: data.documentId,
        customerId: current.customerId,
        platformId: context.platformId,
        metadata: data.metadata,
        file: data.file,
      },
      metadata: { now: this.clock.now() },
    };
    const { events } = await this.write(current.customerId, () =>
      this.eventSourcing.handle(current.customerId, customerDecider, (customer) => replaceDocument(command, customer), context),
    );
    for (const event of events) if (event.type === 'DocumentReplaced') await this.discard(String(event.data['previousBlobKey']));
    return renderDocument(await this.row(context, data.documentId));
  }

  @MessagePattern(subjects.customers.document.delete)
  async delete(@Payload() request: ServiceRequest<DocumentIdData>): Promise<{ deleted: true }> {
    const { context, data } = request;
    const current = await this.row(context, data.documentId);
    const command = {
      type: 'DeleteDocument' as const,
      data: { documentId: data.documentId, customerId: current.customerId, platformId: context.platformId },
      metadata: { now: this.clock.now() },
    };
    const { events } = await this.write(current.customerId, () =>
      this.eventSourcing.handle(current.customerId, customerDecider, (customer) => deleteDocument(command, customer), context),
    );
    for (const event of events) if (event.type === 'DocumentDeleted') await this.discard(String(event.data['blobKey']));
    return { deleted: true };
  }

  @MessagePattern(subjects.customers.document.get)
  async get(@Payload() request: ServiceRequest<DocumentIdData>): Promise<DocumentWire> {
    return renderDocument(await this.row(request.context, request.data.documentId));
  }

  @MessagePattern(subjects.customers.document.list)
  list(@Payload() request: ServiceRequest<ListDocumentsData>): Promise<Page<DocumentWire>> {
    const { documentHolder, limit, cursor } = request.data;
    // Scoped by platform: another platform's holder lists nothing, exactly like an unknown one.
    const where: FilterQuery<DocumentRow> = { platformId: request.context.platformId, ...(documentHolder ? { documentHolder } : {}) };
    return findPage(this.eventSourcing.em, DocumentEntity, where, { limit, ...(cursor ? { cursor } : {}) }, renderDocument);
  }

  /** The stream a holder's documents go to: the customer's own, or the business's of an owner. */
  private async customerOfHolder(context: RequestContext, documentHolder: string): Promise<string> {
    if (documentHolder.startsWith('Customer:')) return documentHolder;
    const owner = await this.eventSourcing.em.findOne(BeneficialOwnerEntity, { id: documentHolder, platformId: context.platformId });
    if (!owner) throw holderNotFound(documentHolder);
    return owner.customerId;
  }

  private async row(context: RequestContext, documentId: string): Promise<DocumentRow> {
    const row = await this.eventSourcing.em.findOne(DocumentEntity, { id: documentId, platformId: context.platformId });
    if (!row) throw documentNotFound(documentId);
    return row;
  }

  private async write<T>(customerId: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isWrongExpectedVersionError(error)) throw busy(customerId);
      throw error;
    }
  }

  /** The event no longer refers to the file; failing to remove it leaves an orphan, never a broken document. */
  private async discard(blobKey: string): Promise<void> {
    await this.blobs
      .delete(blobKey)
      .catch((error: unknown) => this.logger.warn({ blobKey, err: error }, 'Could not delete a blob; it is left as an orphan.'));
  }
}
