import { type DynamicModule, Module } from '@nestjs/common';
import { join } from 'node:path';
import { CLOCK, type Clock, systemClock } from '@corridor/contracts';
import { EventSourcingModule } from '@corridor/event-store';
import { MessagingModule } from '@corridor/messaging';
import type { PaymentsServiceConfig } from './config';
import { ExchangeRatesController } from './exchange-rates/exchange-rates.controller';
import { ExchangeRateCache, RATE_CACHE_OPTIONS, RATE_PROVIDER, sandboxRateProvider } from './exchange-rates/rate-provider';
import { ExecutionController } from './execution/execution.controller';
import { EXECUTION_OPTIONS } from './execution/execution-options';
import { paymentExecutionProjection } from './execution/payment-execution.projection';
import { PaymentProcessor } from './execution/payment-processor';
import { toIntegrationEvent } from './integration-events';
import { PAYMENTS_OPTIONS, type PaymentsOptions } from './payments-options';
import { QuoteExpiryJob } from './quotes/quote-expiry.job';
import { QuoteParties } from './quotes/quote-parties';
import { quoteViewProjection } from './quotes/quote-view.projection';
import { QuotesController } from './quotes/quotes.controller';
import { transactionViewProjection } from './transactions/transaction-view.projection';
import { TransactionsController } from './transactions/transactions.controller';

@Module({})
export class AppModule {
  /** clock: the system clock in production; tests pass one they can move. */
  static register(config: PaymentsServiceConfig, clock: Clock = systemClock): DynamicModule {
    const options: PaymentsOptions = { quoteTtlSeconds: config.quoteTtlSeconds, expirySweepSeconds: config.expirySweepSeconds, feeSchedules: config.feeSchedules };
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({ natsUrl: config.natsUrl, subjectPrefix: config.subjectPrefix, name: 'payments' }),
        EventSourcingModule.forRoot({
          service: 'payments',
          connectionString: config.databaseUrl,
          schema: config.schema,
          natsUrl: config.natsUrl,
          subjectPrefix: config.subjectPrefix,
          migrationsDirectory: join(__dirname, 'migrations'),
          projections: [quoteViewProjection, transactionViewProjection, paymentExecutionProjection],
          toIntegrationEvent,
        }),
      ],
      controllers: [ExchangeRatesController, QuotesController, TransactionsController, ExecutionController],
      providers: [
        { provide: CLOCK, useValue: clock },
        { provide: PAYMENTS_OPTIONS, useValue: options },
        { provide: RATE_PROVIDER, useValue: sandboxRateProvider },
        { provide: RATE_CACHE_OPTIONS, useValue: { ttlSeconds: config.rateCacheSeconds } },
        ExchangeRateCache,
        QuoteParties,
        QuoteExpiryJob,
        { provide: EXECUTION_OPTIONS, useValue: config.execution },
        PaymentProcessor,
      ],
    };
  }
}
