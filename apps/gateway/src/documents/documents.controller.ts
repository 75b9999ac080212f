import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiConsumes, ApiPropertyOptional, ApiTags, IntersectionType } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';
import { BLOB_STORE, type BlobStore } from '@corridor/blob-store';
import {
  documentSides,
  documentTypes,
  type DocumentWire,
  isIdOf,
  type Page,
  type ReplaceDocumentData,
  type RequestContext,
  subjects,
  type UploadDocumentData,
} from '@corridor/contracts';
import type { FastifyRequest } from 'fastify';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { pageOf, PageQuery } from '../http/list-query';
import { IdPipe, Optional } from '../http/validation';
import { ServiceCall } from '../service-call';
import { discardUpload, documentHolderOf, documentMetadataOf, receiveDocument, withUploadFingerprint } from './document-upload';
import { ReferenceOperation } from '../http/openapi/operation';

const documentId = new IdPipe('Document', 'REFERENCE_NOT_FOUND', 'Document');

class HolderFilter {
  @ApiPropertyOptional({ description: 'A Customer or BeneficialOwner id.' })
  @Optional()
  @ValidateBy({
    name: 'isDocumentHolder',
    validator: {
      validate: (value) => isIdOf('Customer', value) || isIdOf('BeneficialOwner', value),
      defaultMessage: () => 'documentHolder must be a Customer or BeneficialOwner id such as Customer:019542f5-b3e7-7d02-8000-000000000001',
    },
  })
  documentHolder?: string;
}

export class ListDocumentsQuery extends IntersectionType(HolderFilter, PageQuery) {}

/** The multipart form, for /docs (the reference's BaseDocumentRequest). */
const documentForm = (withHolder: boolean) => ({
  schema: {
    type: 'object',
    required: [...(withHolder ? ['documentHolder'] : []), 'file', 'documentType', 'country'],
    properties: {
      ...(withHolder ? { documentHolder: { type: 'string', description: 'A Customer or BeneficialOwner id of this platform.' } } : {}),
      file: { type: 'string', format: 'binary', description: 'PDF, JPEG or PNG (read from the content), at most 10 MB.' },
      documentType: { type: 'string', enum: [...documentTypes] },
      side: { type: 'string', enum: [...documentSides] },
      country: { type: 'string', example: 'US' },
      documentNumber: { type: 'string', maxLength: 64 },
      issuingAuthority: { type: 'string', maxLength: 255 },
    },
  },
});

/**
 * Uploads are read here as streams (see document-upload.ts): the file goes to the blob store, and
 * the customers service gets only its key and what was measured. Should the command be refused,
 * the stored file is removed; should it time out, or this process die between the two, the file
 * may be orphaned (docs/decisions/0011).
 */
@ApiTags('Documents')
@ApiBasicAuth()
@Controller('documents')
export class DocumentsController {
  constructor(
    private readonly call: ServiceCall,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  @ReferenceOperation('uploadDocument')
  @Post()
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  @ApiConsumes('multipart/form-data')
  @ApiBody(documentForm(true))
  async upload(@Req() request: FastifyRequest, @Ctx() context: RequestContext): Promise<DocumentWire> {
    const upload = await receiveDocument(request, this.blobs);
    try {
      const data: UploadDocumentData = {
        documentHolder: documentHolderOf(upload.fields),
        metadata: documentMetadataOf(upload.fields, ['documentHolder']),
        file: upload.file,
      };
      return await this.call.request(subjects.customers.document.upload, data, withUploadFingerprint(context, request, upload));
    } catch (error) {
      await discardUpload(this.blobs, upload, error);
      throw error;
    }
  }

  @ReferenceOperation('replaceDocument')
  @Put(':documentId')
  @RequiresPermission('MANAGE')
  @ApiConsumes('multipart/form-data')
  @ApiBody(documentForm(false))
  async replace(
    @Param('documentId', documentId) id: string,
    @Req() request: FastifyRequest,
    @Ctx() context: RequestContext,
  ): Promise<DocumentWire> {
    const upload = await receiveDocument(request, this.blobs);
    try {
      const data: ReplaceDocumentData = { documentId: id, metadata: documentMetadataOf(upload.fields, []), file: upload.file };
      return await this.call.request(subjects.customers.document.replace, data, context);
    } catch (error) {
      await discardUpload(this.blobs, upload, error);
      throw error;
    }
  }

  @ReferenceOperation('listDocuments')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListDocumentsQuery, @Ctx() context: RequestContext): Promise<Page<DocumentWire>> {
    return this.call.request(
      subjects.customers.document.list,
      { ...(query.documentHolder ? { documentHolder: query.documentHolder } : {}), ...pageOf(query) },
      context,
    );
  }

  @ReferenceOperation('getDocument')
  @Get(':documentId')
  @RequiresPermission('VIEW')
  get(@Param('documentId', documentId) id: string, @Ctx() context: RequestContext): Promise<DocumentWire> {
    return this.call.request(subjects.customers.document.get, { documentId: id }, context);
  }

  @ReferenceOperation('deleteDocument')
  @Delete(':documentId')
  @HttpCode(204)
  @RequiresPermission('MANAGE')
  async delete(@Param('documentId', documentId) id: string, @Ctx() context: RequestContext): Promise<void> {
    await this.call.request(subjects.customers.document.delete, { documentId: id }, context);
  }
}
