import { type DynamicModule, Module } from '@nestjs/common';
import { join } from 'node:path';
import { CLOCK, type Clock } from '@corridor/contracts';
import { eventSourcingForService } from '@corridor/event-store';
import { MessagingModule, createLogger } from '@corridor/messaging';
import { CARD_ISSUER, type CardIssuer, sandboxIssuer } from './cards/card-issuer';
import { CARD_OPTIONS, type CardOptions } from './cards/card-options';
import { CardParties } from './cards/card-parties';
import { cardProvisioningProjection } from './cards/card-provisioning.projection';
import { CardProvisioningProcessor } from './cards/card-provisioning-processor';
import { cardViewProjection } from './cards/card-view.projection';
import { CardsController } from './cards/cards.controller';
import { CardTransactionsModule } from './card-transactions/card-transactions.module';
import { cardTransactionProjections } from './card-transactions/card-transaction-view.projection';
import type { CardsServiceConfig } from './config';
import { toIntegrationEvent } from './integration-events';

@Module({})
export class AppModule {
  /**
   * clock: the config's (the system's in production); tests pass one they
   * can move. issuer: the sandbox issuer, the only one (decision 0015).
   */
  static register(config: CardsServiceConfig, clock: Clock = config.clock, issuer: CardIssuer = sandboxIssuer): DynamicModule {
    const options: CardOptions = {
      eligibleCurrencies: config.eligibleCurrencies,
      provisioningSweepSeconds: config.provisioningSweepSeconds,
    };
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({ natsUrl: config.natsUrl, natsAuth: config.natsAuth, subjectPrefix: config.subjectPrefix, name: 'cards' }),
        eventSourcingForService(config, {
          service: 'cards',
          logger: createLogger('cards', { level: config.logLevel }),
          migrationsDirectory: join(__dirname, 'migrations'),
          projections: [cardViewProjection, cardProvisioningProjection, ...cardTransactionProjections],
          toIntegrationEvent,
        }),
        CardTransactionsModule.register(clock, { pullSweepSeconds: config.pullSweepSeconds }),
      ],
      controllers: [CardsController],
      providers: [
        { provide: CLOCK, useValue: clock },
        { provide: CARD_ISSUER, useValue: issuer },
        { provide: CARD_OPTIONS, useValue: options },
        CardParties,
        CardProvisioningProcessor,
      ],
    };
  }
}
