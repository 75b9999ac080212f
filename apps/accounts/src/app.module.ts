import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { ledgerOutcomeOf } from './internal-accounts/ledger-outcome';
import { join } from 'node:path';
import { CLOCK, OBSERVABILITY, type Observability } from '@corridor/contracts';
import { EventSourcing, eventSourcingForService } from '@corridor/event-store';
import { MessagingModule, createLogger, observedPart } from '@corridor/messaging';
import type { AccountsServiceConfig } from './config';
import { CustomerDirectory } from './external-accounts/customer-directory';
import { ExternalAccountsController } from './external-accounts/external-accounts.controller';
import { UmaDepositTargetsController } from './external-accounts/uma-deposit-targets.controller';
import { externalAccountViewProjection } from './external-accounts/external-account-view.projection';
import { EmbeddedWalletsController } from './embedded-wallets/embedded-wallets.controller';
import { EndCardConsentsWhenCardChangesPolicy } from './embedded-wallets/end-card-consents-when-card-changes.policy';
import { OpenWalletsPolicy } from './embedded-wallets/open-wallets.policy';
import { OTP_MAILERS, type OtpMailers } from './embedded-wallets/otp-mail';
import { OtpMailMetrics } from './embedded-wallets/otp-mail-metrics';
import { PurgeSandboxMailboxJob } from './embedded-wallets/purge-sandbox-mailbox.job';
import { SandboxMailbox } from './embedded-wallets/sandbox-mailbox';
import { SmtpMailer } from './embedded-wallets/smtp-mailer';
import { FailureCounter } from './embedded-wallets/failure-counter';
import { SignedRequests } from './embedded-wallets/signed-requests';
import { WalletCredentials } from './embedded-wallets/wallet-credentials';
import { WalletEmailChange } from './embedded-wallets/wallet-email-change';
import { WalletFunding } from './embedded-wallets/wallet-funding';
import { WalletKeys } from './embedded-wallets/wallet-keys';
import { WALLET_OPTIONS, WALLET_STORE, WalletLookups } from './embedded-wallets/wallet-lookups';
import { WalletOidc } from './embedded-wallets/wallet-oidc';
import { WalletOtpMail } from './embedded-wallets/wallet-otp-mail';
import { WalletSessions } from './embedded-wallets/wallet-sessions';
import { WalletSignIn } from './embedded-wallets/wallet-sign-in';
import { WalletStore } from './embedded-wallets/wallet-store';
import { toIntegrationEvent } from './integration-events';
import { AccountWriter, LEDGER_OPTIONS } from './internal-accounts/account-writer';
import { AccountWriterMetrics } from './internal-accounts/account-writer-metrics';
import { CustomerAccountsController } from './internal-accounts/customer-accounts.controller';
import { InternalAccountsController } from './internal-accounts/internal-accounts.controller';
import { internalAccountViewProjection } from './internal-accounts/internal-account-view.projection';
import { LedgerController } from './internal-accounts/ledger.controller';
import { ACCOUNTS_POLICY_OPTIONS, OpenAccountsPolicy } from './internal-accounts/open-accounts-when-customer-created.policy';
import { WalletConsents } from './internal-accounts/wallet-consents';

/** Embedded Wallet credentials and sessions (DESIGN.md §2) on the process's one pool, and the mail port their one-time codes go out by. */
const embeddedWalletProviders = (config: AccountsServiceConfig): Provider[] => [
  {
    provide: WALLET_STORE,
    useFactory: (eventSourcing: EventSourcing) => new WalletStore(eventSourcing.pool, config.schema),
    inject: [EventSourcing],
  },
  { provide: WALLET_OPTIONS, useValue: config.embeddedWallets },
  // The mail port: sandbox platforms' mail goes to the mailbox, production platforms' to the SMTP relay when one is configured.
  {
    provide: SandboxMailbox,
    useFactory: (eventSourcing: EventSourcing) => new SandboxMailbox(eventSourcing.pool, config.schema),
    inject: [EventSourcing],
  },
  { provide: SmtpMailer, useFactory: () => (config.embeddedWallets.smtp ? new SmtpMailer(config.embeddedWallets.smtp) : null) },
  {
    provide: OTP_MAILERS,
    useFactory: (mailbox: SandboxMailbox, smtp: SmtpMailer | null): OtpMailers => ({
      SANDBOX: mailbox,
      ...(smtp ? { PRODUCTION: smtp } : {}),
    }),
    inject: [SandboxMailbox, SmtpMailer],
  },
  OtpMailMetrics,
  AccountWriterMetrics,
  {
    provide: 'ACCOUNT_WRITER_METRICS_SOURCE',
    inject: [{ token: OBSERVABILITY, optional: true }, AccountWriterMetrics],
    useFactory: (observability: Observability | undefined, metrics: AccountWriterMetrics) => observability?.addMetrics(metrics.registry),
  },
  {
    provide: 'OTP_MAIL_METRICS_SOURCE',
    inject: [{ token: OBSERVABILITY, optional: true }, OtpMailMetrics],
    useFactory: (observability: Observability | undefined, metrics: OtpMailMetrics) => observability?.addMetrics(metrics.registry),
  },
  observedPart(
    'mail',
    [SmtpMailer],
    (smtp: SmtpMailer | null) => () => smtp?.health() ?? { status: 'ok', transport: 'none', production: 'no SMTP_HOST: 503' },
  ),
];

/** The Embedded Wallet flows, one class each (decision 0046). */
const embeddedWalletFlows: Provider[] = [
  WalletLookups,
  FailureCounter,
  SignedRequests,
  WalletOidc,
  WalletOtpMail,
  WalletKeys,
  WalletCredentials,
  WalletSessions,
  WalletSignIn,
  WalletFunding,
  WalletEmailChange,
];

@Module({})
export class AppModule {
  static register(config: AccountsServiceConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          natsUrl: config.natsUrl,
          natsAuth: config.natsAuth,
          subjectPrefix: config.subjectPrefix,
          name: 'accounts',
        }),
        eventSourcingForService(config, {
          service: 'accounts',
          logger: createLogger('accounts', { level: config.logLevel }),
          outcomeOf: ledgerOutcomeOf,
          migrationsDirectory: join(__dirname, 'migrations'),
          projections: [internalAccountViewProjection, externalAccountViewProjection],
          toIntegrationEvent,
        }),
      ],
      controllers: [
        LedgerController,
        InternalAccountsController,
        CustomerAccountsController,
        ExternalAccountsController,
        UmaDepositTargetsController,
        EmbeddedWalletsController,
      ],
      providers: [
        { provide: CLOCK, useValue: config.clock },
        {
          provide: ACCOUNTS_POLICY_OPTIONS,
          useValue: {
            natsUrl: config.natsUrl,
            natsAuth: config.natsAuth,
            subjectPrefix: config.subjectPrefix,
            databaseUrl: config.databaseUrl,
            schema: config.schema,
          },
        },
        { provide: LEDGER_OPTIONS, useValue: { operationWindow: config.operationWindow } },
        AccountWriter,
        // Consents over Embedded Wallet money (decision 0020): written where stamps are verified, read by the ledger.
        {
          provide: WalletConsents,
          useFactory: (eventSourcing: EventSourcing) => new WalletConsents(eventSourcing.pool, config.schema),
          inject: [EventSourcing],
        },
        OpenAccountsPolicy,
        CustomerDirectory,
        ...embeddedWalletProviders(config),
        PurgeSandboxMailboxJob,
        ...embeddedWalletFlows,
        OpenWalletsPolicy,
        EndCardConsentsWhenCardChangesPolicy,
      ],
    };
  }
}
