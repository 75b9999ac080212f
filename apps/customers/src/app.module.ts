import { type DynamicModule, Module } from '@nestjs/common';
import { join } from 'node:path';
import { BLOB_STORE, createBlobStore } from '@corridor/blob-store';
import { CLOCK, OBSERVABILITY, type Observability } from '@corridor/contracts';
import { eventSourcingForService } from '@corridor/event-store';
import { MessagingModule, createLogger, observedPart, redisHealth } from '@corridor/messaging';
import type { CustomersServiceConfig } from './config';
import { toIntegrationEvent } from './integration-events';
import { CustomersController } from './customers/customers.controller';
import { customerViewProjection } from './customers/customer-view.projection';
import { PlatformSettingsCache } from './customers/platform-settings.cache';
import { BeneficialOwnersController } from './beneficial-owners/beneficial-owners.controller';
import { beneficialOwnerViewProjection } from './beneficial-owners/beneficial-owner-view.projection';
import { defaultVerificationProviders, VERIFICATION_PROVIDERS } from './verifications/verification-provider';
import { VerificationsController } from './verifications/verifications.controller';
import { verificationViewProjection } from './verifications/verification-view.projection';
import { DocumentsController } from './documents/documents.controller';
import { documentViewProjection } from './documents/document-view.projection';
import { KycLinksController } from './kyc-links/kyc-links.controller';
import { kycLinkViewProjection } from './kyc-links/kyc-link-view.projection';
import { BULK_IMPORT_OPTIONS, BulkImportQueue } from './bulk/bulk-import.queue';
import { BulkImportsController } from './bulk/bulk-imports.controller';
import { bulkImportViewProjection } from './bulk/bulk-import-view.projection';
import { bulkImportsHealth } from './bulk/bulk-import-sweep';

@Module({})
export class AppModule {
  static register(config: CustomersServiceConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          natsUrl: config.natsUrl,
          natsAuth: config.natsAuth,
          subjectPrefix: config.subjectPrefix,
          name: 'customers',
        }),
        eventSourcingForService(config, {
          service: 'customers',
          logger: createLogger('customers', { level: config.logLevel }),
          migrationsDirectory: join(__dirname, 'migrations'),
          projections: [
            customerViewProjection,
            beneficialOwnerViewProjection,
            verificationViewProjection,
            documentViewProjection,
            kycLinkViewProjection,
            bulkImportViewProjection,
          ],
          toIntegrationEvent,
        }),
      ],
      controllers: [
        CustomersController,
        VerificationsController,
        BeneficialOwnersController,
        DocumentsController,
        KycLinksController,
        BulkImportsController,
      ],
      providers: [
        { provide: CLOCK, useValue: config.clock },
        { provide: BLOB_STORE, useFactory: () => createBlobStore(config.blobStore) },
        { provide: VERIFICATION_PROVIDERS, useValue: defaultVerificationProviders },
        PlatformSettingsCache,
        { provide: BULK_IMPORT_OPTIONS, useValue: config.bulkImport },
        BulkImportQueue,
        observedPart('redis', [BulkImportQueue], (queue: BulkImportQueue) => redisHealth(() => queue.redis)),
        // A stuck import (no progress for BULK_IMPORT_STUCK_AFTER_MS) shows as degraded here and on GET /metrics.
        observedPart('bulk-imports', [BulkImportQueue], (queue: BulkImportQueue) => () => bulkImportsHealth(queue.lastSweep)),
        {
          provide: 'BULK_IMPORT_METRICS_SOURCE',
          inject: [{ token: OBSERVABILITY, optional: true }, BulkImportQueue],
          useFactory: (observability: Observability | undefined, queue: BulkImportQueue) =>
            observability?.addMetrics(queue.metrics.registry),
        },
      ],
    };
  }
}
