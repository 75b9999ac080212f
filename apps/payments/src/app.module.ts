import { type DynamicModule, Module } from '@nestjs/common';
import { paymentOutcomeOf } from './execution/payment-outcome';
import { join } from 'node:path';
import { CLOCK, type Clock } from '@corridor/contracts';
import { eventSourcingForService } from '@corridor/event-store';
import { MessagingModule, createLogger } from '@corridor/messaging';
import type { PaymentsServiceConfig } from './config';
import { ExchangeRatesController } from './exchange-rates/exchange-rates.controller';
import { ExchangeRateCache, RATE_CACHE_OPTIONS, RATE_PROVIDER, sandboxRateProvider } from './exchange-rates/rate-provider';
import { IncomingController } from './incoming/incoming.controller';
import { INCOMING_OPTIONS } from './incoming/incoming-options';
import { ApprovalHooks } from './incoming/approval-hooks';
import { IncomingSettlement } from './incoming/incoming-settlement';
import { IncomingTimerJob } from './incoming/incoming-timer.job';
import { incomingTimerProjection } from './incoming/incoming-timer.projection';
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
import { CryptoController } from './crypto/crypto.controller';
import { DirectoriesController } from './discoveries/discoveries.controller';
import { invitationViewProjection } from './invitations/invitation-view.projection';
import { InvitationsController } from './invitations/invitations.controller';
import { lookupViewProjection } from './uma/lookup-view.projection';
import { LookupsController } from './uma/lookups.controller';
import { UMA_OPTIONS, type UmaOptions } from './uma/uma-options';
import { ReceiptsController } from './transactions/receipts.controller';
import { transactionCountProjection } from './transactions/transaction-count.projection';
import { transferTimerProjection } from './transfers/transfer-timer.projection';
import { TRANSFER_OPTIONS, type TransferOptions } from './transfers/transfer-options';
import { TransferParties } from './transfers/transfer-parties';
import { TransferOpener } from './transfers/open-transfer';
import { TransferProcessor } from './transfers/transfer-processor';
import { TransfersController } from './transfers/transfers.controller';

/** Payments' read models, each rebuildable from the store. */
const projections = [
  quoteViewProjection,
  transactionViewProjection,
  lookupViewProjection,
  invitationViewProjection,
  incomingTimerProjection,
  transferTimerProjection,
  transactionCountProjection,
  paymentExecutionProjection,
];

@Module({})
export class AppModule {
  /** clock: the config's (the system's in production); tests pass one they can move. */
  static register(config: PaymentsServiceConfig, clock: Clock = config.clock): DynamicModule {
    const transferOptions: TransferOptions = { pendingSeconds: config.transferPendingSeconds, sweepSeconds: config.transferSweepSeconds };
    const options: PaymentsOptions = {
      quoteTtlSeconds: config.quoteTtlSeconds,
      expirySweepSeconds: config.expirySweepSeconds,
      feeSchedules: config.feeSchedules,
    };
    const umaOptions: UmaOptions = {
      lookupTtlSeconds: config.receiverLookupTtlSeconds,
      invitationTtlSeconds: config.invitationTtlSeconds,
      invitationUrlBase: config.invitationUrlBase,
    };
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          natsUrl: config.natsUrl,
          natsAuth: config.natsAuth,
          subjectPrefix: config.subjectPrefix,
          name: 'payments',
        }),
        eventSourcingForService(config, {
          service: 'payments',
          logger: createLogger('payments', { level: config.logLevel }),
          outcomeOf: paymentOutcomeOf,
          migrationsDirectory: join(__dirname, 'migrations'),
          projections,
          toIntegrationEvent,
        }),
      ],
      controllers: [
        ExchangeRatesController,
        QuotesController,
        TransactionsController,
        LookupsController,
        InvitationsController,
        DirectoriesController,
        CryptoController,
        IncomingController,
        TransfersController,
        ReceiptsController,
        ExecutionController,
      ],
      providers: [
        { provide: CLOCK, useValue: clock },
        { provide: PAYMENTS_OPTIONS, useValue: options },
        { provide: UMA_OPTIONS, useValue: umaOptions },
        { provide: RATE_PROVIDER, useValue: sandboxRateProvider },
        { provide: RATE_CACHE_OPTIONS, useValue: { ttlSeconds: config.rateCacheSeconds } },
        ExchangeRateCache,
        QuoteParties,
        QuoteExpiryJob,
        { provide: INCOMING_OPTIONS, useValue: config.incoming },
        IncomingSettlement,
        ApprovalHooks,
        IncomingTimerJob,
        { provide: TRANSFER_OPTIONS, useValue: transferOptions },
        TransferParties,
        TransferProcessor,
        TransferOpener,
        { provide: EXECUTION_OPTIONS, useValue: config.execution },
        PaymentProcessor,
      ],
    };
  }
}
