import { join } from 'node:path';
import { uniqueValueDecider } from '@corridor/contracts';
import type { Projection } from '@corridor/event-store';
import { accountIdentityDecider } from '../apps/accounts/src/external-accounts/account-identity';
import { externalAccountDecider } from '../apps/accounts/src/external-accounts/external-account';
import { externalAccountViewProjection } from '../apps/accounts/src/external-accounts/external-account-view.projection';
import { umaDepositDefaultDecider } from '../apps/accounts/src/external-accounts/uma-deposit-default';
import { internalAccountHistoryDecider } from '../apps/accounts/src/internal-accounts/internal-account-history';
import { internalAccountViewProjection } from '../apps/accounts/src/internal-accounts/internal-account-view.projection';
import { customerDecider } from '../apps/customers/src/customers/customer';
import { customerViewProjection } from '../apps/customers/src/customers/customer-view.projection';
import { beneficialOwnerViewProjection } from '../apps/customers/src/beneficial-owners/beneficial-owner-view.projection';
import { verificationViewProjection } from '../apps/customers/src/verifications/verification-view.projection';
import { documentViewProjection } from '../apps/customers/src/documents/document-view.projection';
import { kycLinkViewProjection } from '../apps/customers/src/kyc-links/kyc-link-view.projection';
import { bulkImportDecider } from '../apps/customers/src/bulk/bulk-import';
import { bulkImportViewProjection } from '../apps/customers/src/bulk/bulk-import-view.projection';
import { quoteViewProjection } from '../apps/payments/src/quotes/quote-view.projection';
import { transactionDecider } from '../apps/payments/src/transactions/transaction';
import { transactionViewProjection } from '../apps/payments/src/transactions/transaction-view.projection';
import { invitationDecider } from '../apps/payments/src/invitations/invitation';
import { invitationViewProjection } from '../apps/payments/src/invitations/invitation-view.projection';
import { lookupViewProjection } from '../apps/payments/src/uma/lookup-view.projection';
import { receiverLookupDecider } from '../apps/payments/src/uma/receiver-lookup';
import { incomingPaymentDecider, incomingPaymentEventTypes } from '../apps/payments/src/incoming/incoming-payment';
import { transactionCountProjection } from '../apps/payments/src/transactions/transaction-count.projection';
import { paymentExecutionProjection } from '../apps/payments/src/execution/payment-execution.projection';
import { transferTimerProjection } from '../apps/payments/src/transfers/transfer-timer.projection';
import { incomingTimerProjection } from '../apps/payments/src/incoming/incoming-timer.projection';
import { actionDecider } from '../apps/agents/src/actions/action';
import { actionViewProjection } from '../apps/agents/src/actions/action-view.projection';
import { agentDecider } from '../apps/agents/src/agents/agent';
import { agentQuoteDecider, agentQuoteProjection } from '../apps/agents/src/agents/agent-quote';
import { agentViewProjection, deviceCodeProjection } from '../apps/agents/src/agents/agent-view.projection';
import { cardDecider } from '../apps/cards/src/cards/card';
import { cardProvisioningProjection } from '../apps/cards/src/cards/card-provisioning.projection';
import { cardViewProjection } from '../apps/cards/src/cards/card-view.projection';
import { cardTransactionDecider } from '../apps/cards/src/card-transactions/card-transaction';
import { cardTransactionViewProjection } from '../apps/cards/src/card-transactions/card-transaction-view.projection';
import { platformDecider } from '../apps/platform/src/platforms/platform';
import { platformViewProjection } from '../apps/platform/src/platforms/platform-view.projection';
import { apiTokenProjection } from '../apps/platform/src/tokens/api-token.projection';
import { tokenDecider } from '../apps/platform/src/tokens/token';

// The operator's view of the services that keep event streams: where their schema and read-model
// migrations are, which projections they run, and how to fold each kind of stream into its state.
type AnyDecider = { evolve: (state: any, event: any) => any; initialState: () => any };

/** eventStore false: the service keeps plain tables only (webhooks: the delivery log), no event store. */
export type ServiceInfo = {
  schema: string;
  migrations: string;
  projections: Projection<any>[];
  streams: Record<string, AnyDecider>;
  eventStore?: false;
};

/**
 * A Transaction: stream is a quote's payment or a transfer (transactionDecider) or an incoming UMA
 * payment (incomingPaymentDecider): one id space, one read model. Its events say which.
 */
const incomingEvents = new Set<string>(incomingPaymentEventTypes);
const transactionStreamDecider: AnyDecider = {
  initialState: () => null,
  evolve: (state, event) => {
    const decider: AnyDecider = incomingEvents.has(event.type) ? incomingPaymentDecider : transactionDecider;
    return decider.evolve(state ?? decider.initialState(), event);
  },
};

export const services: Record<string, ServiceInfo> = {
  platform: {
    schema: 'platform',
    migrations: join(__dirname, '../apps/platform/src/migrations'),
    projections: [platformViewProjection, apiTokenProjection],
    streams: { Platform: platformDecider, Token: tokenDecider },
  },
  customers: {
    schema: 'customers',
    migrations: join(__dirname, '../apps/customers/src/migrations'),
    // Beneficial owners and verifications are recorded in their customer's stream (decision 0007),
    // so they add read models here but no stream type of their own.
    projections: [
      customerViewProjection,
      beneficialOwnerViewProjection,
      verificationViewProjection,
      documentViewProjection,
      kycLinkViewProjection,
      bulkImportViewProjection,
    ],
    streams: { Customer: customerDecider, UmaAddress: uniqueValueDecider, PlatformCustomerId: uniqueValueDecider, Job: bulkImportDecider },
  },
  accounts: {
    schema: 'accounts',
    migrations: join(__dirname, '../apps/accounts/src/migrations'),
    projections: [internalAccountViewProjection, externalAccountViewProjection],
    // The replay view rather than the ledger decider: its state is JSON-safe and shows both balances.
    // External-account state is plain JSON already, so its own decider folds it.
    streams: {
      InternalAccount: internalAccountHistoryDecider,
      ExternalAccount: externalAccountDecider,
      ExternalAccountIdentity: accountIdentityDecider,
      UmaDepositDefault: umaDepositDefaultDecider,
    },
  },
  payments: {
    schema: 'payments',
    migrations: join(__dirname, '../apps/payments/src/migrations'),
    projections: [
      quoteViewProjection,
      transactionViewProjection,
      lookupViewProjection,
      invitationViewProjection,
      incomingTimerProjection,
      transferTimerProjection,
      transactionCountProjection,
      paymentExecutionProjection,
    ],
    streams: { Transaction: transactionStreamDecider, Lookup: receiverLookupDecider, Invitation: invitationDecider },
  },
  cards: {
    schema: 'cards',
    migrations: join(__dirname, '../apps/cards/src/migrations'),
    projections: [cardViewProjection, cardProvisioningProjection, cardTransactionViewProjection],
    streams: { Card: cardDecider, PlatformCardId: uniqueValueDecider, CardTransaction: cardTransactionDecider },
  },
  agents: {
    schema: 'agents',
    migrations: join(__dirname, '../apps/agents/src/migrations'),
    projections: [agentViewProjection, deviceCodeProjection, actionViewProjection, agentQuoteProjection],
    streams: { Agent: agentDecider, AgentAction: actionDecider, AgentQuote: agentQuoteDecider },
  },
  webhooks: {
    schema: 'webhooks',
    migrations: join(__dirname, '../apps/webhooks/src/migrations'),
    projections: [],
    streams: {},
    eventStore: false,
  },
};

/** The service and decider that own a stream, found from the stream id's type prefix. */
export const ownerOfStream = (streamId: string): { service: string; info: ServiceInfo; decider: AnyDecider } | undefined => {
  const prefix = streamId.split(':')[0] ?? '';
  for (const [service, info] of Object.entries(services)) {
    const decider = info.streams[prefix];
    if (decider) return { service, info, decider };
  }
  return undefined;
};

export const databaseUrl = (): string => process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/corridor';
