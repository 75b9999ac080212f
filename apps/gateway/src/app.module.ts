import { BLOB_STORE, createBlobStore } from '@corridor/blob-store';
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { MessagingModule } from '@corridor/messaging';
import type { Logger } from 'pino';
import { AgentMeController } from './agents/agent-me.controller';
import { AgentAuthGuard } from './agents/agent-auth.guard';
import { AgentsController } from './agents/agents.controller';
import {
  AGENT_TOKEN_VERIFIER,
  type AgentTokenVerifier,
  AgentTokens,
  agentTokensRefusedOnPlatformRoutes,
} from './auth/agent-token-verifier';
import { AuthGuard } from './auth/auth.guard';
import { AuthService } from './auth/auth.service';
import { FailedAttempts } from './auth/failed-attempts';
import { BeneficialOwnersController } from './beneficial-owners/beneficial-owners.controller';
import { CardsController } from './cards/cards.controller';
import { BulkImportsController } from './bulk-imports/bulk-imports.controller';
import { GATEWAY_CONFIG, type GatewayConfig } from './config';
import { CustomersController } from './customers/customers.controller';
import { DocumentsController } from './documents/documents.controller';
import { KycLinkPageController, KycLinksController } from './kyc-links/kyc-links.controller';
import { CustomerExternalAccountsController, PlatformExternalAccountsController } from './external-accounts/external-accounts.controller';
import { HealthController } from './health/health.controller';
import { ErrorFilter } from './http/error.filter';
import { RouteTable } from './http/route-table';
import { createValidationPipe, InputShapePipe } from './http/validation';
import { AuthCredentialsController } from './auth-credentials/auth-credentials.controller';
import { IncomingPaymentsController } from './payments/incoming.controller';
import { CardSimulatorsController } from './cards/card-simulators.controller';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { InternalAccountsController } from './internal-accounts/internal-accounts.controller';
import { QuoteExecutionController } from './payments/execution.controller';
import { ExchangeRatesController, QuotesController, TransactionsController } from './payments/payments.controller';
import { ConfigController } from './platform-config/config.controller';
import { GatewayMetrics } from './http/gateway-metrics';
import { MetricsServer } from './http/metrics-server';
import { RateLimiter } from './rate-limit/rate-limiter';
import { RedisConnection } from './redis';
import { ServiceCall } from './service-call';
import { TokensController } from './tokens/tokens.controller';
import {
  CryptoController,
  DiscoveriesController,
  InvitationsController,
  ReceiverLookupsController,
  UmaProvidersController,
} from './uma/uma.controller';
import { TransactionReceiptsController, TransfersController } from './transfers/transfers.controller';
import { VerificationsController } from './verifications/verifications.controller';
import { SandboxWebhooksController, WebhooksController } from './webhooks/webhooks.controller';
import { AgentEventsController, EventsController } from './events/events.controller';

export type GatewayDependencies = {
  routes: RouteTable;
  logger: Logger;
  /** The gateway's one metrics registry; createGateway's request hooks observe into it too. */
  metrics: GatewayMetrics;
  agentTokenVerifier?: AgentTokenVerifier;
};

/** Every HTTP route of the public API, one controller per resource. */
const controllers = [
  TokensController,
  EventsController,
  AgentEventsController,
  ConfigController,
  CustomerExternalAccountsController,
  PlatformExternalAccountsController,
  CustomersController,
  InternalAccountsController,
  ExchangeRatesController,
  QuotesController,
  TransactionsController,
  IncomingPaymentsController,
  CardSimulatorsController,
  TransfersController,
  TransactionReceiptsController,
  QuoteExecutionController,
  HealthController,
  SandboxWebhooksController,
  WebhooksController,
  VerificationsController,
  BeneficialOwnersController,
  ReceiverLookupsController,
  UmaProvidersController,
  DiscoveriesController,
  CryptoController,
  InvitationsController,
  DocumentsController,
  KycLinksController,
  KycLinkPageController,
  BulkImportsController,
  CardsController,
  AgentMeController,
  AgentsController,
  AuthCredentialsController,
];

@Module({})
export class AppModule {
  static register(config: GatewayConfig, dependencies: GatewayDependencies): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          natsUrl: config.natsUrl,
          natsAuth: config.natsAuth,
          subjectPrefix: config.subjectPrefix,
          name: 'gateway',
        }),
      ],
      controllers,
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: BLOB_STORE, useFactory: () => createBlobStore(config.blobStore) },
        { provide: RouteTable, useValue: dependencies.routes },
        { provide: AGENT_TOKEN_VERIFIER, useValue: dependencies.agentTokenVerifier ?? agentTokensRefusedOnPlatformRoutes },
        RedisConnection,
        { provide: GatewayMetrics, useValue: dependencies.metrics },
        MetricsServer,
        FailedAttempts,
        RateLimiter,
        AuthService,
        AgentTokens,
        AgentAuthGuard,
        IdempotencyStore,
        ServiceCall,
        // Order matters: guards (auth, rate limit, permission) run before the idempotency
        // interceptor, which needs the platform; pipes run inside it, so a rejected body
        // releases the key.
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        { provide: APP_PIPE, useClass: InputShapePipe },
        { provide: APP_PIPE, useValue: createValidationPipe() },
        { provide: APP_FILTER, useValue: new ErrorFilter(dependencies.routes, dependencies.logger) },
      ],
    };
  }
}
