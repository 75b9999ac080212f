// Every NATS subject, in one place. Commands and queries are `<service>.<aggregate>.<verb>`
// (request-reply, one queue group per service); integration events are
// `events.<service>.<Aggregate>.<EventType>` on the JetStream stream EVENTS.
// The messaging library prepends the deployment's subject prefix (CORRIDOR_SUBJECT_PREFIX), which
// is how test runs sharing one NATS server stay apart.

export const subjects = {
  platform: {
    auth: { verify: 'platform.auth.verify' },
    platform: { create: 'platform.platform.create', get: 'platform.platform.get' },
    token: {
      create: 'platform.token.create',
      get: 'platform.token.get',
      list: 'platform.token.list',
      delete: 'platform.token.delete',
    },
    config: { get: 'platform.config.get', update: 'platform.config.update' },
    health: 'platform.health.ping',
    /** Core NATS broadcast (no queue group) so every gateway replica evicts its credential cache. */
    tokenRevoked: 'platform.token.revoked',
  },
  customers: {
    customer: {
      create: 'customers.customer.create',
      get: 'customers.customer.get',
      list: 'customers.customer.list',
      update: 'customers.customer.update',
      delete: 'customers.customer.delete',
      /** The wire object as it was right after one event of the customer's stream (webhook payloads). */
      renderAt: 'customers.customer.render-at',
    },
    bulkImport: {
      create: 'customers.bulk-import.create',
      get: 'customers.bulk-import.get',
      /** The job as it was right after one event of its stream (webhook payloads). */
      renderAt: 'customers.bulk-import.render-at',
    },
    verification: {
      submit: 'customers.verification.submit',
      get: 'customers.verification.get',
      list: 'customers.verification.list',
      /** The wire object as it was right after one event of its customer's stream (webhook payloads). */
      renderAt: 'customers.verification.render-at',
    },
    beneficialOwner: {
      create: 'customers.beneficial-owner.create',
      get: 'customers.beneficial-owner.get',
      update: 'customers.beneficial-owner.update',
      list: 'customers.beneficial-owner.list',
    },
    document: {
      upload: 'customers.document.upload',
      replace: 'customers.document.replace',
      get: 'customers.document.get',
      list: 'customers.document.list',
      delete: 'customers.document.delete',
    },
    kycLink: {
      create: 'customers.kyc-link.create',
      /** Token-only lookups from the hosted page; the token is the credential. */
      page: 'customers.kyc-link.page',
      complete: 'customers.kyc-link.complete',
    },
    health: 'customers.health.ping',
  },
  accounts: {
    ledger: {
      credit: 'accounts.ledger.credit',
      debit: 'accounts.ledger.debit',
      hold: 'accounts.ledger.hold',
      settle: 'accounts.ledger.settle',
      release: 'accounts.ledger.release',
    },
    internalAccount: {
      /** One account of the asking platform (customer's or its own), as GET would show it; 404 for any other. */
      get: 'accounts.internal-account.get',
      list: 'accounts.internal-account.list',
      listPlatform: 'accounts.internal-account.list-platform',
      fund: 'accounts.internal-account.fund',
      /** OpenCustomerAccountsData → OpenCustomerAccountsReply: a new customer's accounts, opened before its create answers. */
      openForCustomer: 'accounts.internal-account.open-for-customer',
      /** The wire object as it was right after one event of the account's stream (webhook payloads). */
      renderAt: 'accounts.internal-account.render-at',
    },
    externalAccount: {
      create: 'accounts.external-account.create',
      get: 'accounts.external-account.get',
      list: 'accounts.external-account.list',
      delete: 'accounts.external-account.delete',
    },
    /** Where a customer's incoming UMA payments go (UmaDepositTargetsData → UmaDepositTargetsWire). */
    umaDeposit: { targets: 'accounts.uma-deposit.targets' },
    /** Embedded Wallet auth (libs/contracts/src/embedded-wallets.ts); signed operations answer SignedReply. */
    embeddedWallet: {
      createCredential: 'accounts.embedded-wallet.credential.create',
      listCredentials: 'accounts.embedded-wallet.credential.list',
      revokeCredential: 'accounts.embedded-wallet.credential.revoke',
      challengeCredential: 'accounts.embedded-wallet.credential.challenge',
      verifyCredential: 'accounts.embedded-wallet.credential.verify',
      listSessions: 'accounts.embedded-wallet.session.list',
      revokeSession: 'accounts.embedded-wallet.session.revoke',
      refreshSession: 'accounts.embedded-wallet.session.refresh',
      updateAccount: 'accounts.embedded-wallet.account.update',
      exportAccount: 'accounts.embedded-wallet.account.export',
      sandboxMailbox: 'accounts.embedded-wallet.sandbox-mailbox',
      /** VerifyWalletStampData → {verified: true}, or 401 with the reference's wallet signature codes. */
      verifyStamp: 'accounts.embedded-wallet.verify-stamp',
      /** CustomerEmailChangeData → SignedReply<WalletAuthorization>. */
      customerEmailChange: 'accounts.embedded-wallet.customer-email-change',
      /** WalletFundedChangeData → SignedReply<WalletAuthorization>. */
      walletFundedChange: 'accounts.embedded-wallet.wallet-funded-change',
      /** ReleaseSignedRequestData → {released: boolean}: the change a signed request authorized was refused downstream. */
      releaseSignedRequest: 'accounts.embedded-wallet.release-signed-request',
    },
    health: 'accounts.health.ping',
  },
  payments: {
    exchangeRate: { list: 'payments.exchange-rate.list' },
    quote: { create: 'payments.quote.create', get: 'payments.quote.get', execute: 'payments.quote.execute' },
    /** The sandbox's simulated arrival of a REALTIME_FUNDING quote's funds (POST /sandbox/send). */
    sandbox: { send: 'payments.sandbox.send' },
    lookup: { uma: 'payments.lookup.uma', externalAccount: 'payments.lookup.external-account' },
    umaProvider: { list: 'payments.uma-provider.list' },
    discovery: { list: 'payments.discovery.list' },
    crypto: { estimateWithdrawalFee: 'payments.crypto.estimate-withdrawal-fee' },
    invitation: {
      create: 'payments.invitation.create',
      get: 'payments.invitation.get',
      claim: 'payments.invitation.claim',
      cancel: 'payments.invitation.cancel',
    },
    incoming: {
      /** POST /sandbox/uma/receive. */
      receive: 'payments.incoming.receive',
      approve: 'payments.incoming.approve',
      reject: 'payments.incoming.reject',
      /** From the webhooks service: the receiver's answer to INCOMING_PAYMENT.PENDING (IncomingApprovalAnswerData). */
      approvalAnswer: 'payments.incoming.approval-answer',
    },
    transaction: { get: 'payments.transaction.get', list: 'payments.transaction.list', confirm: 'payments.transaction.confirm' },
    transfer: { out: 'payments.transfer.out', in: 'payments.transfer.in' },
    health: 'payments.health.ping',
  },
  cards: {
    card: {
      create: 'cards.card.create',
      get: 'cards.card.get',
      list: 'cards.card.list',
      update: 'cards.card.update',
    },
    health: 'cards.health.ping',
  },
  agents: {
    agent: {
      create: 'agents.agent.create',
      get: 'agents.agent.get',
      list: 'agents.agent.list',
      update: 'agents.agent.update',
      updatePolicy: 'agents.agent.update-policy',
      delete: 'agents.agent.delete',
      regenerateDeviceCode: 'agents.agent.regenerate-device-code',
    },
    deviceCode: { status: 'agents.device-code.status', redeem: 'agents.device-code.redeem' },
    token: { verify: 'agents.token.verify' },
    action: { approve: 'agents.action.approve', reject: 'agents.action.reject', listApprovals: 'agents.action.list-approvals' },
    /** Bearer routes: the context's actor is the agent; the service applies its customer and policy. */
    me: {
      get: 'agents.me.get',
      listActions: 'agents.me.list-actions',
      getAction: 'agents.me.get-action',
      executeQuote: 'agents.me.execute-quote',
      transferOut: 'agents.me.transfer-out',
      transferIn: 'agents.me.transfer-in',
      createQuote: 'agents.me.create-quote',
      getQuote: 'agents.me.get-quote',
      listTransactions: 'agents.me.list-transactions',
      getTransaction: 'agents.me.get-transaction',
      listInternalAccounts: 'agents.me.list-internal-accounts',
      listExternalAccounts: 'agents.me.list-external-accounts',
      createExternalAccount: 'agents.me.create-external-account',
      getExternalAccount: 'agents.me.get-external-account',
      deleteExternalAccount: 'agents.me.delete-external-account',
    },
    health: 'agents.health.ping',
  },
  webhooks: {
    test: { send: 'webhooks.test.send' },
    delivery: {
      list: 'webhooks.delivery.list',
      attempts: 'webhooks.delivery.attempts',
      redeliver: 'webhooks.delivery.redeliver',
      redeliverMany: 'webhooks.delivery.redeliver-many',
    },
    signingKey: { get: 'webhooks.signing-key.get', rotate: 'webhooks.signing-key.rotate' },
    health: 'webhooks.health.ping',
  },
  bench: { echo: 'bench.echo' },
} as const;

/** JetStream subject of an integration event. */
export const eventSubject = (service: string, aggregate: string, eventType: string): string =>
  `events.${service}.${aggregate}.${eventType}`;

/** The JetStream stream that carries a deployment's integration events (`<PREFIX>_EVENTS`). */
export const eventsStreamName = (subjectPrefix: string): string => `${subjectPrefix.toUpperCase()}_EVENTS`;
