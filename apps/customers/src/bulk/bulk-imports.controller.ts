import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BLOB_STORE, BlobNotFoundError, type BlobStore } from '@corridor/blob-store';
import {
  type BulkImportJobIdData,
  type BulkImportJobWire,
  CLOCK,
  type Clock,
  type CreateBulkImportData,
  type CreateBulkImportReply,
  DomainError,
  invalidInput,
  type RenderBulkImportAtData,
  type ServiceRequest,
  subjects,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { bulkImportDecider, bulkImportJobId } from './bulk-import';
import { acceptBulkImport } from './bulk-import-commands';
import { BulkImportEntity, renderBulkImport, renderBulkImportAt } from './bulk-import-view.projection';
import { BulkImportQueue } from './bulk-import.queue';
import { readHeader } from './csv-file';
import { checkHeader } from './csv-row';

const notFound = (jobId: string) => new DomainError('BULK_UPLOAD_JOB_NOT_FOUND', 'not_found', `Bulk upload job ${jobId} was not found.`);

@Controller()
export class BulkImportsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly queue: BulkImportQueue,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The gateway stored the upload; a file whose header cannot be read is refused here, before any job exists. */
  @MessagePattern(subjects.customers.bulkImport.create)
  async create(@Payload() request: ServiceRequest<CreateBulkImportData>): Promise<CreateBulkImportReply> {
    const { context, data } = request;
    const header = await readHeader(this.blobs, data.blobKey).catch((error: unknown) => {
      // A blob the gateway stored but this service cannot see is a deployment fault (BLOB_STORE/BLOB_DIR differ), not bad input.
      if (error instanceof BlobNotFoundError) throw error;
      throw invalidInput(`The file is not readable as CSV: ${(error as Error).message}`, { field: 'file' });
    });
    if (!header) throw invalidInput('The file is empty; its first line must name the columns.', { field: 'file' });
    checkHeader(header);
    const jobId = bulkImportJobId(context.platformId, data.sha256);
    const command = {
      type: 'AcceptBulkImport' as const,
      data: { jobId, platformId: context.platformId, ...data },
      metadata: { now: this.clock.now() },
    };
    const { state, events } = await this.eventSourcing.handle(jobId, bulkImportDecider, (job) => acceptBulkImport(command, job), context);
    if (state.status === 'COMPLETED' || state.status === 'FAILED') {
      throw new DomainError(
        'CONFLICT',
        'conflict',
        `This file was imported before as bulk upload job ${jobId} (${state.status}); see GET /customers/bulk/jobs/${jobId}. Upload a ` +
          `changed file to import again.`,
        { jobId },
      );
    }
    if (state.status === 'None') throw new Error(`Accepting ${jobId} left it without events.`);
    // Queued on every upload of an unfinished job: the queue keeps one per job id, and this puts back one whose queueing was lost.
    await this.queue.enqueue(jobId);
    return { accepted: { jobId, status: state.status }, created: events.length > 0 };
  }

  @MessagePattern(subjects.customers.bulkImport.get)
  async get(@Payload() request: ServiceRequest<BulkImportJobIdData>): Promise<BulkImportJobWire> {
    const row = await this.eventSourcing.em.findOne(BulkImportEntity, { id: request.data.jobId, platformId: request.context.platformId });
    if (!row) throw notFound(request.data.jobId);
    return renderBulkImport(row);
  }

  /** The webhooks service renders the job as it was right after the event it announces. */
  @MessagePattern(subjects.customers.bulkImport.renderAt)
  async renderAt(@Payload() request: ServiceRequest<RenderBulkImportAtData>): Promise<BulkImportJobWire> {
    const { jobId, streamPosition } = request.data;
    const { events } = await this.eventSourcing.store.readStream(jobId);
    const job = renderBulkImportAt(events, streamPosition, request.context.platformId);
    if (!job) throw notFound(jobId);
    return job;
  }
}
