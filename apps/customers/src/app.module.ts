import { type DynamicModule, Module } from '@nestjs/common';
import { join } from 'node:path';
import { CLOCK, systemClock } from '@corridor/contracts';
import { EventSourcingModule } from '@corridor/event-store';
import { MessagingModule } from '@corridor/messaging';
import type { CustomersServiceConfig } from './config';
import { toIntegrationEvent } from './integration-events';
import { CustomersController } from './customers/customers.controller';
import { customerViewProjection } from './customers/customer-view.projection';
import { PlatformSettingsCache } from './customers/platform-settings.cache';

@Module({})
export class AppModule {
  static register(config: CustomersServiceConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({ natsUrl: config.natsUrl, subjectPrefix: config.subjectPrefix, name: 'customers' }),
        EventSourcingModule.forRoot({
          service: 'customers',
          connectionString: config.databaseUrl,
          schema: config.schema,
          natsUrl: config.natsUrl,
          subjectPrefix: config.subjectPrefix,
          migrationsDirectory: join(__dirname, 'migrations'),
          projections: [customerViewProjection],
          toIntegrationEvent,
        }),
      ],
      controllers: [CustomersController],
      providers: [{ provide: CLOCK, useValue: systemClock }, PlatformSettingsCache],
    };
  }
}
