import { type DynamicModule, Module } from '@nestjs/common';
import { join } from 'node:path';
import { CLOCK, systemClock } from '@corridor/contracts';
import { EventSourcingModule, EventSourcing } from '@corridor/event-store';
import { MessagingModule, createLogger, observedPart, postgresHealth } from '@corridor/messaging';
import type { PlatformServiceConfig } from './config';
import { toIntegrationEvent } from './integration-events';
import { PlatformsController } from './platforms/platforms.controller';
import { platformViewProjection } from './platforms/platform-view.projection';
import { resolveWithDns, WEBHOOK_TARGETS, type WebhookTargets } from './platforms/webhook-target';
import { apiTokenProjection } from './tokens/api-token.projection';
import { TokensController } from './tokens/tokens.controller';

@Module({})
export class AppModule {
  static register(config: PlatformServiceConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({ natsUrl: config.natsUrl, subjectPrefix: config.subjectPrefix, name: 'platform' }),
        EventSourcingModule.forRoot({
          service: 'platform',
          logger: createLogger('platform', { level: config.logLevel }),
          poolSize: config.databasePoolSize,
          connectionString: config.databaseUrl,
          schema: config.schema,
          natsUrl: config.natsUrl,
          subjectPrefix: config.subjectPrefix,
          migrationsDirectory: join(__dirname, 'migrations'),
          projections: [platformViewProjection, apiTokenProjection],
          toIntegrationEvent,
        }),
      ],
      controllers: [TokensController, PlatformsController],
      providers: [
        { provide: CLOCK, useValue: systemClock },
        observedPart('postgres', [EventSourcing], (eventSourcing: EventSourcing) => postgresHealth(() => eventSourcing.em.getConnection().execute('SELECT 1'))),
        { provide: WEBHOOK_TARGETS, useValue: { allowPrivate: config.allowPrivateWebhookTargets, resolve: resolveWithDns } satisfies WebhookTargets },
      ],
    };
  }
}
