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
      update: 'accounts.internal-account.update',
      fund: 'accounts.internal-account.fund',
      /** The wire object as it was right after one event of the account's stream (webhook payloads). */
      renderAt: 'accounts.internal-account.render-at',
    },
    externalAccount: {
      create: 'accounts.external-account.create',
      get: 'accounts.external-account.get',
      list: 'accounts.external-account.list',
      delete: 'accounts.external-account.delete',
    },
    health: 'accounts.health.ping',
  },
  payments: {
    exchangeRate: { list: 'payments.exchange-rate.list' },
    quote: { create: 'payments.quote.create', get: 'payments.quote.get', execute: 'payments.quote.execute' },
    /** The sandbox's simulated arrival of a REALTIME_FUNDING quote's funds (POST /sandbox/send). */
    sandbox: { send: 'payments.sandbox.send' },
    transaction: { get: 'payments.transaction.get', list: 'payments.transaction.list' },
    health: 'payments.health.ping',
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
