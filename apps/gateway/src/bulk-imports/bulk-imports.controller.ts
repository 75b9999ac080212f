import { Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import { BLOB_STORE, type BlobStore, BlobTooLargeError } from '@corridor/blob-store';
import {
  type BulkImportAcceptedWire,
  type BulkImportJobWire,
  type CreateBulkImportData,
  type CreateBulkImportReply,
  DomainError,
  invalidInput,
  newUuid,
  type RequestContext,
  subjects,
} from '@corridor/contracts';
import type { FastifyRequest } from 'fastify';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import { createLogger } from '@corridor/messaging';
import { ReferenceOperation } from '../http/openapi/operation';

/** The largest CSV accepted: about 2 million rows of typical customers. */
export const BULK_CSV_MAX_BYTES = 256 * 1024 * 1024;

const jobId = new IdPipe('Job', 'BULK_UPLOAD_JOB_NOT_FOUND', 'Bulk upload job');

const multipartOnly = () => invalidInput('Send the CSV as multipart/form-data with the file in a part named "file".', { field: 'file' });

/**
 * Bulk customer import (docs/decisions/0012). The upload streams into the blob store (never whole
 * in memory); the customers service checks its header, records the job and queues it.
 */
@ApiTags('Customers')
@ApiBasicAuth()
@Controller('customers/bulk')
export class BulkImportsController {
  constructor(
    private readonly call: ServiceCall,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  @ReferenceOperation('uploadCustomersCsv')
  @Post('csv')
  @HttpCode(202)
  @RequiresPermission('MANAGE')
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } })
  async upload(@Req() request: FastifyRequest, @Ctx() context: RequestContext): Promise<BulkImportAcceptedWire> {
    if (!request.isMultipart()) throw multipartOnly();
    // One byte over the limit is enough for the store to tell a file that is too large.
    // A body that is not readable multipart is the client's mistake: the 400 below says what to send.
    const file = await request.file({ limits: { fileSize: BULK_CSV_MAX_BYTES + 1 } }).catch(() => undefined);
    if (!file) throw multipartOnly();
    if (file.fieldname !== 'file') {
      file.file.resume();
      throw invalidInput(`The CSV must be in a part named "file", not "${file.fieldname}".`, { field: 'file' });
    }
    const key = `bulk-imports/${context.platformId.replace(/[^A-Za-z0-9_-]/g, '_')}/${newUuid()}.csv`;
    const stored = await this.blobs
      .put(key, file.file, { maxBytes: BULK_CSV_MAX_BYTES, contentType: 'text/csv' })
      .catch((error: unknown) => {
        if (error instanceof BlobTooLargeError) {
          throw new DomainError(
            'PAYLOAD_TOO_LARGE',
            'payload_too_large',
            `The file is larger than ${BULK_CSV_MAX_BYTES} bytes; split it into smaller files.`,
            { field: 'file', maxBytes: BULK_CSV_MAX_BYTES },
          );
        }
        throw error;
      });
    try {
      if (stored.size === 0) throw invalidInput('The file is empty; its first line must name the columns.', { field: 'file' });
      const data: CreateBulkImportData = { blobKey: key, sha256: stored.sha256, size: stored.size };
      const reply = await this.call.request<CreateBulkImportReply>(subjects.customers.bulkImport.create, data, context);
      // A re-upload of a file still being imported is answered with that job; its own copy is not needed.
      if (!reply.created) await this.blobs.delete(key).catch((error: unknown) => orphaned(key, error));
      return reply.accepted;
    } catch (error) {
      // A refusal recorded no job for this copy. After an outage the job may exist and need it, so it stays.
      if (error instanceof DomainError && error.status < 500)
        await this.blobs.delete(key).catch((deleteError: unknown) => orphaned(key, deleteError));
      throw error;
    }
  }

  @ReferenceOperation('getBulkCustomerImportJob')
  @Get('jobs/:jobId')
  @RequiresPermission('VIEW')
  get(@Param('jobId', jobId) id: string, @Ctx() context: RequestContext): Promise<BulkImportJobWire> {
    return this.call.request(subjects.customers.bulkImport.get, { jobId: id }, context);
  }
}

const logger = createLogger('gateway:bulk-imports');
/** A copy nobody needs that could not be deleted: harmless to the import, but an operator may want to clean it. */
const orphaned = (key: string, error: unknown): void =>
  logger.warn({ err: error, blobKey: key }, 'Could not delete an unneeded CSV upload; it stays in the blob store.');
