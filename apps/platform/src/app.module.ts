import { type DynamicModule, Module } from '@nestjs/common';
import { join } from 'node:path';
import { CLOCK } from '@corridor/contracts';
import { eventSourcingForService } from '@corridor/event-store';
import { MessagingModule, createLogger } from '@corridor/messaging';
import { OBSERVABILITY, type Observability } from '@corridor/contracts';
import type { PlatformServiceConfig } from './config';
import { toIntegrationEvent } from './integration-events';
import { PlatformsController } from './platforms/platforms.controller';
import { platformViewProjection } from './platforms/platform-view.projection';
import { resolveWithDns, WEBHOOK_TARGETS, type WebhookTargets } from './platforms/webhook-target';
import { apiTokenProjection } from './tokens/api-token.projection';
import { PlatformAuthMetrics } from './tokens/auth-metrics';
import { FairGate } from './tokens/fair-gate';
import { TOKEN_OPTIONS, type TokenOptions } from './tokens/token-options';
import { TokensController } from './tokens/tokens.controller';

@Module({})
export class AppModule {
  static register(config: PlatformServiceConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          natsUrl: config.natsUrl,
          natsAuth: config.natsAuth,
          subjectPrefix: config.subjectPrefix,
          name: 'platform',
        }),
        eventSourcingForService(config, {
          service: 'platform',
          logger: createLogger('platform', { level: config.logLevel }),
          migrationsDirectory: join(__dirname, 'migrations'),
          projections: [platformViewProjection, apiTokenProjection],
          toIntegrationEvent,
        }),
      ],
      controllers: [TokensController, PlatformsController],
      providers: [
        { provide: CLOCK, useValue: config.clock },
        {
          provide: TOKEN_OPTIONS,
          useValue: {
            tokensMax: config.tokensMax,
            verifyGate: {
              concurrency: config.verifyConcurrency,
              queueMax: config.verifyQueueMax,
              queuePerKeyMax: config.verifyQueuePerClientMax,
            },
          } satisfies TokenOptions,
        },
        { provide: FairGate, inject: [TOKEN_OPTIONS], useFactory: (options: TokenOptions) => new FairGate(options.verifyGate) },
        { provide: PlatformAuthMetrics, inject: [FairGate], useFactory: (gate: FairGate) => new PlatformAuthMetrics(gate) },
        // GET /metrics of the common health server serves these after the process metrics.
        {
          provide: 'PLATFORM_AUTH_METRICS_SOURCE',
          inject: [{ token: OBSERVABILITY, optional: true }, PlatformAuthMetrics],
          useFactory: (observability: Observability | undefined, metrics: PlatformAuthMetrics) =>
            observability?.addMetrics(metrics.registry),
        },
        {
          provide: WEBHOOK_TARGETS,
          useValue: { allowPrivate: config.allowPrivateWebhookTargets, resolve: resolveWithDns } satisfies WebhookTargets,
        },
      ],
    };
  }
}
