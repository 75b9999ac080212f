import { cardTransactionSubjects, eventStoreServices, eventsListSubject, subjects } from '@corridor/contracts';
import { randomBytes } from 'node:crypto';
import { inboxPrefixOf } from './nats-auth';

// Who may say what on the bus (decision 0025): the one list the nats-server configuration is
// written from (scripts/nats-config.ts, the e2e stack, the soak) and the tests read. Subjects here
// are unprefixed, as in libs/contracts; natsServerConfig adds the deployment's prefix.

export const busServices = ['platform', 'customers', 'accounts', 'payments', 'cards', 'agents', 'webhooks'] as const;
export type BusService = (typeof busServices)[number];
export type BusUserName = BusService | 'gateway' | 'operator';

/** A JetStream durable consumer a user may create and pull from, on one filter of the events stream. */
export type BusConsumer = { durable: string; filter: string };

export type BusUser = {
  /** The service whose request subjects it answers (queue group) and whose integration events it publishes. */
  service?: BusService;
  /** Request subjects of other services it sends (exactly what its code calls; bus-permissions.spec.ts checks both ways). */
  requests: readonly string[];
  /** Whether it publishes its service's integration events (the outbox relay). */
  publishesEvents?: boolean;
  consumers?: readonly BusConsumer[];
  /** Core NATS broadcasts of another service it listens to (a service's own, like platform.token.revoked, are its subjects already). */
  listens?: readonly string[];
};

type SubjectTree = { readonly [key: string]: string | SubjectTree };

/** Every subject of a part of `subjects`, but those named in `except`. */
const leaves = (tree: SubjectTree, except: readonly string[] = []): string[] =>
  Object.values(tree)
    .flatMap((value) => (typeof value === 'string' ? [value] : leaves(value)))
    .filter((subject) => !except.includes(subject));

const ledger = subjects.accounts.ledger;
const healthPings = [
  subjects.platform.health,
  subjects.customers.health,
  subjects.accounts.health,
  subjects.payments.health,
  subjects.cards.health,
  subjects.agents.health,
  subjects.webhooks.health,
];

/** The gateway asks every service what an HTTP route needs, but never a ledger command, a webhook render or an internal check. */
const gatewayRequests = [
  subjects.platform.auth.verify,
  ...leaves(subjects.platform.token),
  ...leaves(subjects.platform.config),
  ...leaves(subjects.customers, [
    subjects.customers.customer.renderAt,
    subjects.customers.bulkImport.renderAt,
    subjects.customers.verification.renderAt,
    subjects.customers.health,
  ]),
  ...leaves(subjects.accounts.embeddedWallet, [subjects.accounts.embeddedWallet.verifyStamp]),
  ...leaves(subjects.accounts.externalAccount),
  subjects.accounts.internalAccount.fund,
  subjects.accounts.internalAccount.list,
  subjects.accounts.internalAccount.listPlatform,
  ...leaves(subjects.payments, [subjects.payments.incoming.approvalAnswer, subjects.payments.health]),
  ...leaves(subjects.cards, [subjects.cards.health]),
  // The sandbox's card simulators (POST /sandbox/cards/{id}/simulate/...).
  cardTransactionSubjects.authorize,
  cardTransactionSubjects.clear,
  cardTransactionSubjects.return,
  ...leaves(subjects.agents, [subjects.agents.health]),
  ...leaves(subjects.webhooks, [subjects.webhooks.health]),
  // GET /events asks every service with an event store for its own events (decision 0037).
  ...eventStoreServices.map((service) => eventsListSubject(service)),
  ...healthPings,
];

const platformEvent = (type: string) => `events.platform.Platform.${type}`;
const customerEvent = (type: string) => `events.customers.Customer.${type}`;

export const busUsers: Record<BusUserName, BusUser> = {
  gateway: { requests: gatewayRequests, listens: [subjects.platform.tokenRevoked] },
  platform: { service: 'platform', requests: [], publishesEvents: true },
  // A new customer's accounts are opened before POST /customers answers (decision 0027).
  customers: {
    service: 'customers',
    requests: [subjects.platform.platform.get, subjects.accounts.internalAccount.openForCustomer],
    publishesEvents: true,
  },
  accounts: {
    service: 'accounts',
    requests: [subjects.customers.customer.get, subjects.platform.platform.get],
    publishesEvents: true,
    // The policies of apps/accounts/src/internal-accounts and apps/accounts/src/embedded-wallets.
    consumers: [
      { durable: 'accounts-open-customer-accounts', filter: customerEvent('CustomerCreated') },
      { durable: 'accounts-open-platform-accounts', filter: platformEvent('PlatformCreated') },
      { durable: 'accounts-open-customer-currency-accounts', filter: customerEvent('CustomerUpdated') },
      { durable: 'accounts-open-platform-currency-accounts', filter: platformEvent('PlatformConfigUpdated') },
      { durable: 'accounts-wallets-platform-created', filter: platformEvent('PlatformCreated') },
      { durable: 'accounts-wallets-platform-config', filter: platformEvent('PlatformConfigUpdated') },
      { durable: 'accounts-wallets-customer-created', filter: customerEvent('CustomerCreated') },
      { durable: 'accounts-wallets-customer-updated', filter: customerEvent('CustomerUpdated') },
      { durable: 'accounts-end-card-consents', filter: 'events.cards.Card.>' },
    ],
  },
  payments: {
    service: 'payments',
    requests: [
      ledger.credit,
      ledger.hold,
      ledger.settle,
      ledger.release,
      subjects.accounts.embeddedWallet.verifyStamp,
      subjects.accounts.externalAccount.get,
      subjects.accounts.internalAccount.get,
      subjects.accounts.umaDeposit.targets,
      subjects.customers.customer.get,
      subjects.customers.customer.list,
      subjects.platform.platform.get,
    ],
    publishesEvents: true,
  },
  cards: {
    service: 'cards',
    requests: [
      ledger.credit,
      ledger.debit,
      ledger.hold,
      ledger.settle,
      ledger.release,
      subjects.accounts.internalAccount.get,
      subjects.customers.customer.get,
    ],
    publishesEvents: true,
  },
  agents: {
    service: 'agents',
    requests: [
      subjects.accounts.embeddedWallet.verifyStamp,
      subjects.accounts.embeddedWallet.walletFundedChange,
      ...leaves(subjects.accounts.externalAccount),
      subjects.accounts.internalAccount.get,
      subjects.accounts.internalAccount.list,
      subjects.customers.customer.get,
      subjects.payments.exchangeRate.list,
      ...leaves(subjects.payments.quote),
      subjects.payments.transaction.get,
      subjects.payments.transaction.list,
      ...leaves(subjects.payments.transfer),
    ],
    publishesEvents: true,
  },
  webhooks: {
    service: 'webhooks',
    requests: [
      subjects.accounts.internalAccount.renderAt,
      subjects.customers.bulkImport.renderAt,
      subjects.customers.customer.renderAt,
      subjects.customers.verification.renderAt,
      subjects.payments.incoming.approvalAnswer,
      subjects.platform.config.get,
    ],
    consumers: [{ durable: 'webhooks-deliveries', filter: 'events.>' }],
  },
  // scripts/create-platform.ts (and the e2e stack's platform bootstrap): creates platforms, nothing else.
  operator: { requests: [subjects.platform.platform.create, ...healthPings] },
};

export type BusPermissions = { publish: string[]; subscribe: string[] };

/**
 * The subjects one user may publish and subscribe to under a deployment's prefix. Replies to the
 * requests a service answers need no entry: `allow_responses` lets it answer exactly the requests
 * it received, and nothing else on another user's inbox.
 */
export const busPermissions = (name: BusUserName, subjectPrefix: string, streamName: string): BusPermissions => {
  const user = busUsers[name];
  const prefixed = (subject: string) => `${subjectPrefix}.${subject}`;
  const jetStream = user.publishesEvents || (user.consumers?.length ?? 0) > 0;
  const publish = [
    ...user.requests.map(prefixed),
    // A service may call its own subjects (one replica asking another).
    ...(user.service ? [prefixed(`${user.service}.>`)] : []),
    ...(user.publishesEvents && user.service ? [prefixed(`events.${user.service}.>`)] : []),
    // The stream is created by whichever service starts first; nobody may update or delete it.
    ...(jetStream ? ['$JS.API.INFO', `$JS.API.STREAM.INFO.${streamName}`, `$JS.API.STREAM.CREATE.${streamName}`] : []),
    ...(user.consumers ?? []).flatMap(({ durable, filter }) => [
      `$JS.API.CONSUMER.INFO.${streamName}.${durable}`,
      // The filter is part of the subject (nats-server 2.9's create API), so a user cannot widen its durable.
      `$JS.API.CONSUMER.CREATE.${streamName}.${durable}.${prefixed(filter)}`,
      `$JS.API.CONSUMER.MSG.NEXT.${streamName}.${durable}`,
      `$JS.ACK.${streamName}.${durable}.>`,
    ]),
  ];
  const subscribe = [
    `${inboxPrefixOf(name)}.>`,
    ...(user.service ? [prefixed(`${user.service}.>`)] : []),
    ...(user.listens ?? []).map(prefixed),
  ];
  return { publish: [...new Set(publish)], subscribe: [...new Set(subscribe)] };
};

/**
 * A random bus password. nats-server reads an environment variable as a configuration value, so a
 * password must be a plain word: a letter, then letters and digits (one starting with `-` or
 * looking like a number is refused at start).
 */
export const busPassword = (): string => `p${randomBytes(24).toString('hex')}`;

/** The environment variable the nats-server configuration reads a user's password from. */
export const busPasswordVariable = (name: BusUserName): string => `NATS_PASSWORD_${name.toUpperCase()}`;

export type NatsServerConfigOptions = {
  subjectPrefix: string;
  streamName: string;
  /** Passwords written into the file (a test stack); without them the file reads NATS_PASSWORD_<USER> from nats-server's environment. */
  passwords?: Partial<Record<BusUserName, string>>;
  port?: number;
  storeDir?: string;
  /** Extra users with every permission (a test harness that watches the bus); never in a deployment. */
  harness?: { user: string; password: string };
  tls?: { certFile: string; keyFile: string; caFile?: string; verify?: boolean };
};

const quoted = (value: string): string => JSON.stringify(value);
const list = (values: string[]): string => `[${values.map(quoted).join(', ')}]`;

/** nats-server's configuration: one user per service, the gateway and the operator, each with its own permissions. */
export const natsServerConfig = (options: NatsServerConfigOptions): string => {
  const users = (Object.keys(busUsers) as BusUserName[]).map((name) => {
    const { publish, subscribe } = busPermissions(name, options.subjectPrefix, options.streamName);
    const given = options.passwords?.[name];
    const password = given !== undefined ? quoted(given) : `$${busPasswordVariable(name)}`;
    return [
      `    {`,
      `      user: ${quoted(name)}, password: ${password}`,
      `      permissions: {`,
      `        publish: { allow: ${list(publish)} }`,
      `        subscribe: { allow: ${list(subscribe)} }`,
      `        allow_responses: true`,
      `      }`,
      `    }`,
    ].join('\n');
  });
  if (options.harness) users.push(`    { user: ${quoted(options.harness.user)}, password: ${quoted(options.harness.password)} }`);
  const tls = options.tls;
  return [
    `# Written by libs/messaging/src/bus-permissions.ts (npm run nats:config); do not edit by hand.`,
    `port: ${options.port ?? 4222}`,
    `jetstream { store_dir: ${quoted(options.storeDir ?? '/data/jetstream')} }`,
    ...(tls
      ? [
          `tls { cert_file: ${quoted(tls.certFile)}, key_file: ${quoted(tls.keyFile)}` +
            `${tls.caFile ? `, ca_file: ${quoted(tls.caFile)}` : ''}${tls.verify ? ', verify: true' : ''} }`,
        ]
      : []),
    `authorization {`,
    `  users: [`,
    users.join('\n'),
    `  ]`,
    `}`,
    '',
  ].join('\n');
};
