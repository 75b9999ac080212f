import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { CLOCK, type Clock, eventsStreamName, type PlatformConfigWire, type RequestContext, subjects } from '@corridor/contracts';
import { ensureEventsStream, EventSourcing, RecentlySeen } from '@corridor/event-store';
import {
  consumeEvents,
  createLogger,
  createProcessedStore,
  type ProcessedStore,
  ServiceClient,
  natsConnectionOptions,
} from '@corridor/messaging';
import { currentContext } from '@corridor/telemetry';
import { connect, type NatsConnection } from 'nats';
import { AccountWriter } from '../internal-accounts/account-writer';
import {
  ACCOUNTS_POLICY_OPTIONS,
  type AccountsPolicyOptions,
  internalAccountIdFor,
} from '../internal-accounts/open-accounts-when-customer-created.policy';
import { openInternalAccount, openIsFinal } from '../internal-accounts/open-internal-account';
import { WalletKeys } from './wallet-keys';
import { WALLET_STORE } from './wallet-lookups';
import { WALLET_CURRENCY } from './signed-consent';
import type { WalletStore } from './wallet-store';

/** CustomerCreated events the policy handles at once. */
const CREATED_CONCURRENCY = 16;
/** A customer's one wallet; the suffix keeps it apart from the customer's per-currency accounts. */
export const walletAccountIdFor = (customerId: string): string => internalAccountIdFor(customerId, 'EMBEDDED_WALLET');

const PLATFORM_LOOKUP_TIMEOUT_MS = 5_000;
/** New customers remembered per replica: their CustomerCreated arrives within moments of the create. */
const HANDLED_AT_CREATE_REMEMBERED = 10_000;

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export type PlatformFacts = { platformId: string; environment: string; enabled: boolean; config: Record<string, unknown> };
export type CustomerFacts = { platformId: string; customerId: string; email: string | null };

/** PlatformCreated / PlatformConfigUpdated: a platform enables Embedded Wallets by configuring embeddedWalletConfig. */
export const platformFacts = (payload: unknown): PlatformFacts | null => {
  const event = asRecord(payload);
  const data = asRecord(event['data']);
  const platformId = text(data['platformId']) ?? text(event['platformId']);
  if (!platformId) return null;
  const settings = asRecord(data['settings'] ?? data['changes']);
  const config = settings['embeddedWalletConfig'];
  return {
    platformId,
    environment: text(data['environment']) ?? '',
    enabled: config !== undefined && config !== null,
    config: asRecord(config),
  };
};

/** CustomerCreated / CustomerUpdated: the email an EMAIL_OTP credential is for. */
export const customerFacts = (payload: unknown): CustomerFacts | null => {
  const event = asRecord(payload);
  const data = asRecord(event['data']);
  const customerId = text(data['customerId']);
  const platformId = text(data['platformId']) ?? text(event['platformId']);
  if (!customerId || !platformId) return null;
  return { customerId, platformId, email: text(asRecord(data['profile'] ?? data['changes'])['email']) };
};

/**
 * Opens an EMBEDDED_WALLET internal account with a wallet key and one EMAIL_OTP credential for
 * every customer (with an email) of a platform that enables Embedded Wallets: new customers when
 * they are created or get an email, existing ones when the platform enables it. Every step is
 * idempotent, so redelivery and the two consumers racing each other open one wallet.
 */
@Injectable()
export class OpenWalletsPolicy implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = createLogger('accounts:open-wallets-policy');
  private nats?: NatsConnection;
  private processed?: ProcessedStore;
  private consumers: { stop(): Promise<void> }[] = [];
  /**
   * New customers openForNewCustomer handles or handled: the email each was recorded with once
   * done, undefined if that handling failed. The event often arrives while it is still under way.
   */
  private readonly handledAtCreate = new RecentlySeen<Promise<string | null | undefined>>(HANDLED_AT_CREATE_REMEMBERED);

  constructor(
    @Inject(ACCOUNTS_POLICY_OPTIONS) private readonly options: AccountsPolicyOptions,
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    private readonly walletKeys: WalletKeys,
    private readonly writer: AccountWriter,
    private readonly eventSourcing: EventSourcing,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly client: ServiceClient,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { natsUrl, natsAuth, subjectPrefix, schema } = this.options;
    this.nats = await connect(natsConnectionOptions(natsUrl, natsAuth, 'accounts-wallet-policy'));
    const stream = eventsStreamName(subjectPrefix);
    await ensureEventsStream(this.nats, { name: stream, subjects: [`${subjectPrefix}.events.>`] });
    this.processed = createProcessedStore({ pool: this.eventSourcing.pool, schema, consumer: 'accounts-open-wallets' });
    const scope = { nc: this.nats, stream, subjectPrefix, logger: this.logger, processed: this.processed };
    const onPlatform = (payload: unknown, msgId: string) => this.handlePlatformEvent(payload, msgId);
    const onCustomerCreated = (payload: unknown, msgId: string) => this.handleCustomerCreated(payload, msgId);
    const onCustomerUpdated = (payload: unknown, msgId: string) => this.onCustomer(customerFacts(payload), msgId, { emailChange: true });
    this.consumers = [
      await consumeEvents(scope, 'accounts-wallets-platform-created', 'platform.Platform.PlatformCreated', onPlatform, {
        deduplicate: true,
      }),
      await consumeEvents(scope, 'accounts-wallets-platform-config', 'platform.Platform.PlatformConfigUpdated', onPlatform, {
        deduplicate: true,
      }),
      // A customer is created once and every step of its handling is idempotent, so a redelivery
      // needs no processed-message record (two round trips a customer) and creations need no order
      // between them: a burst of new customers is handled many at once.
      await consumeEvents(scope, 'accounts-wallets-customer-created', 'customers.Customer.CustomerCreated', onCustomerCreated, {
        concurrency: CREATED_CONCURRENCY,
      }),
      // Updates keep the record and their order: a redelivered older email must not follow a newer one.
      await consumeEvents(scope, 'accounts-wallets-customer-updated', 'customers.Customer.CustomerUpdated', onCustomerUpdated, {
        deduplicate: true,
      }),
    ];
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
    this.consumers = [];
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats?.drain();
    await this.processed?.close();
  }

  /** PlatformCreated or PlatformConfigUpdated, in whichever order the two consumers take them. */
  async handlePlatformEvent(payload: unknown, msgId: string): Promise<void> {
    const facts = platformFacts(payload);
    // A malformed event will never become valid; redelivering it would only loop.
    if (!facts) return this.logger.error({ msgId }, 'Ignoring a platform event without a platformId.');
    const environment =
      facts.environment ||
      (await this.store.platform(facts.platformId))?.environment ||
      (await this.environmentOf(facts.platformId, msgId));
    await this.store.upsertPlatform({ ...facts, environment });
    if (!facts.enabled) return;
    // Every customer still without a wallet, not only when the platform was not enabled before: a
    // crash halfway through the customers leaves the rest to this event's redelivery.
    const customers = await this.store.customersWithoutWallet(facts.platformId);
    if (customers.length === 0) return;
    this.logger.info(
      { msgId, platformId: facts.platformId, customers: customers.length },
      'Embedded Wallets enabled: opening wallets for existing customers.',
    );
    for (const customer of customers) await this.open(facts.platformId, customer.customerId, customer.email, msgId);
  }

  /**
   * PlatformConfigUpdated does not say the platform's environment, and its consumer may run before
   * PlatformCreated's: the platform service is asked instead, so a platform is never stored without
   * one (which every sandbox rule would read as production). A platform it does not know yet makes
   * the lookup fail and the event come again later.
   */
  private async environmentOf(platformId: string, msgId: string): Promise<string> {
    const context: RequestContext = {
      platformId,
      actor: { kind: 'system', name: 'accounts:open-wallets-policy' },
      requestId: msgId,
      correlationId: storyOf(msgId),
    };
    const config = await this.client.request<PlatformConfigWire>(
      subjects.platform.platform.get,
      {},
      { context, timeoutMs: PLATFORM_LOOKUP_TIMEOUT_MS },
    );
    return config.environment;
  }

  /**
   * CustomerCreated. A customer this replica already handled before POST /customers answered, with
   * the same email, has nothing left to do here: that handling recorded the customer before it read
   * the platform, as this would, so a platform that enables wallets later finds the customer anyway.
   * An event that arrives while that handling is under way waits for it rather than repeat it. Any
   * other (a create whose open failed, another replica's) is handled in full, idempotently.
   */
  async handleCustomerCreated(payload: unknown, msgId: string): Promise<void> {
    const facts = customerFacts(payload);
    const handled = facts ? await this.handledAtCreate.get(facts.customerId) : undefined;
    if (facts && handled === facts.email) return;
    await this.onCustomer(facts, msgId, { emailChange: false });
  }

  private async onCustomer(facts: CustomerFacts | null, msgId: string, { emailChange }: { emailChange: boolean }): Promise<void> {
    if (!facts) return this.logger.error({ msgId }, 'Ignoring a customer event without customerId and platformId.');
    // The customer is written before the platform is read, as the platform handler writes the
    // platform before reading its customers: whichever runs second sees the other's write.
    const email = await this.store.upsertCustomer(facts.customerId, facts.platformId, facts.email);
    const platform = await this.store.platform(facts.platformId);
    if (platform?.enabled && email) await this.open(facts.platformId, facts.customerId, email, msgId);
    if (!emailChange || !facts.email) return;
    // An email change (authorized by the wallet's signed retry on PATCH /customers) moves the EMAIL_OTP credential with it.
    const wallet = await this.store.walletOfCustomer(facts.customerId, facts.platformId);
    if (wallet) await this.store.renameEmailCredential(wallet.accountId, facts.email, this.clock.now());
  }

  /**
   * A new customer's wallet, opened before POST /customers answers (decision 0027). The customers
   * service says whether the platform enables wallets (it read the platform's configuration for the
   * create); this service's own copy of that configuration follows platform events and may lag.
   * Answers the wallet's account id, or null when the customer gets none.
   */
  async openForNewCustomer(facts: CustomerFacts, enabled: boolean, msgId: string): Promise<string | null> {
    const opening = this.openNewCustomerWallet(facts, enabled, msgId);
    // The failure itself reaches POST /customers through `opening`; the event's handling only needs
    // to know that this one did not finish, and then does the work itself.
    this.handledAtCreate.remember(
      facts.customerId,
      opening.then(
        () => facts.email,
        () => undefined,
      ),
    );
    return opening;
  }

  private async openNewCustomerWallet(facts: CustomerFacts, enabled: boolean, msgId: string): Promise<string | null> {
    const email = await this.store.upsertCustomer(facts.customerId, facts.platformId, facts.email);
    if (!email || !(enabled || (await this.store.platform(facts.platformId))?.enabled)) return null;
    await this.open(facts.platformId, facts.customerId, email, msgId);
    return walletAccountIdFor(facts.customerId);
  }

  private async open(platformId: string, customerId: string, email: string, msgId: string): Promise<void> {
    const accountId = walletAccountIdFor(customerId);
    const context: RequestContext = {
      platformId,
      actor: { kind: 'system', name: 'accounts:open-wallets-policy' },
      requestId: msgId,
      correlationId: storyOf(msgId),
    };
    const data = {
      accountId,
      platformId,
      customerId,
      accountType: 'EMBEDDED_WALLET' as const,
      currency: WALLET_CURRENCY,
      status: 'ACTIVE' as const,
      operationId: `open:${accountId}`,
    };
    // Keys first, then the account: a wallet the client can list always has its credential.
    await this.walletKeys.provision({ accountId, platformId, customerId, email });
    await this.writer.apply(
      accountId,
      context,
      (state) => openInternalAccount({ type: 'OpenInternalAccount', data, metadata: { now: this.clock.now() } }, state),
      { assumeNew: true, isFinal: (state) => openIsFinal(data, state) },
    );
  }
}

/**
 * The correlation of the request the consumed event belongs to (the consumer restores it); the message id for an old message without one.
 */
const storyOf = (msgId: string): string => currentContext()?.correlationId ?? msgId;
