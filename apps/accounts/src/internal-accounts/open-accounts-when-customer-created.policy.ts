import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { CLOCK, type Clock, eventsStreamName, isSupportedCurrency, type RequestContext } from '@corridor/contracts';
import { ensureEventsStream } from '@corridor/event-store';
import { consumeEvents, createLogger, type NatsAuth, natsConnectionOptions } from '@corridor/messaging';
import { connect, type NatsConnection } from 'nats';
import { v5 as uuidv5 } from 'uuid';
import { AccountWriter } from './account-writer';
import type { InternalAccountType } from './internal-account';
import { openInternalAccount, openIsFinal } from './open-internal-account';

export const ACCOUNTS_POLICY_OPTIONS = 'ACCOUNTS_POLICY_OPTIONS';
export type AccountsPolicyOptions = { natsUrl: string; natsAuth?: NatsAuth; subjectPrefix: string; databaseUrl: string; schema: string };

/** Fixed namespace for the accounts' name-based ids; changing it would give every owner new account ids. */
const ACCOUNT_ID_NAMESPACE = '3f6c1d2e-8b4a-5c7d-9e0f-a1b2c3d4e5f6';
/** Events the policy handles at once (a burst of new customers opens their accounts together). */
const OPEN_CONCURRENCY = 16;
const CRYPTO_CURRENCIES: ReadonlySet<string> = new Set(['BTC', 'USDC', 'USDB']);

/**
 * The same owner and currency always give the same account id, so a redelivered event opens
 * nothing new: the decider sees the account already opened by that exact request and decides nothing.
 */
export const internalAccountIdFor = (ownerId: string, currency: string): string =>
  `InternalAccount:${uuidv5(`${ownerId}:${currency}`, ACCOUNT_ID_NAMESPACE)}`;

export const accountTypeFor = (currency: string): InternalAccountType =>
  CRYPTO_CURRENCIES.has(currency) ? 'INTERNAL_CRYPTO' : 'INTERNAL_FIAT';

export type AccountsToOpen = {
  platformId: string;
  customerId: string | null;
  currencies: string[];
  eventId: string;
  correlationId: string;
};

const NOTHING_TO_OPEN: AccountsToOpen = { platformId: '', customerId: null, currencies: [], eventId: '', correlationId: '' };

type Envelope = { eventId?: unknown; platformId?: unknown; correlationId?: unknown; data?: Record<string, unknown> };

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
/**
 * The owning platform: the event's own data first, because the envelope's platformId is the
 * request context's, and the request that creates a platform comes from no platform at all (its
 * context carries an empty platformId).
 */
const platformIdOf = (event: Envelope, data: Record<string, unknown>): unknown =>
  typeof data['platformId'] === 'string' && data['platformId'] !== '' ? data['platformId'] : event.platformId;
const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** Reads a CustomerCreated integration event; null when it lacks what an account needs. */
export const fromCustomerCreated = (payload: unknown, msgId: string): AccountsToOpen | null => {
  const event = asRecord(payload) as Envelope;
  const data = asRecord(event.data);
  const customerId = data['customerId'];
  const platformId = platformIdOf(event, data);
  if (typeof customerId !== 'string' || typeof platformId !== 'string' || platformId === '') return null;
  const eventId = typeof event.eventId === 'string' ? event.eventId : msgId;
  const correlationId = typeof event.correlationId === 'string' ? event.correlationId : eventId;
  return { platformId, customerId, currencies: stringsOf(asRecord(data['profile'])['currencies']), eventId, correlationId };
};

/** Reads a PlatformCreated integration event: the platform's own accounts, one per supported currency. */
export const fromPlatformCreated = (payload: unknown, msgId: string): AccountsToOpen | null => {
  const event = asRecord(payload) as Envelope;
  const data = asRecord(event.data);
  const platformId = platformIdOf(event, data);
  if (typeof platformId !== 'string' || platformId === '') return null;
  const supported = asRecord(data['settings'])['supportedCurrencies'];
  const currencies = Array.isArray(supported) ? stringsOf(supported.map((entry) => asRecord(entry)['currencyCode'])) : [];
  const eventId = typeof event.eventId === 'string' ? event.eventId : msgId;
  return {
    platformId,
    customerId: null,
    currencies,
    eventId,
    correlationId: typeof event.correlationId === 'string' ? event.correlationId : eventId,
  };
};

/**
 * Reads a CustomerUpdated integration event: accounts for the currencies the update lists. Listing
 * every currency (not only the added ones) is safe, because an account that exists decides nothing;
 * a removed currency keeps its account, since it may still hold money.
 */
export const fromCustomerUpdated = (payload: unknown, msgId: string): AccountsToOpen | null => {
  const event = asRecord(payload) as Envelope;
  const data = asRecord(event.data);
  const changes = asRecord(data['changes']);
  if (!Array.isArray(changes['currencies'])) return null;
  return fromCustomerCreated({ ...event, data: { ...data, profile: { currencies: changes['currencies'] } } }, msgId);
};

/** Reads a PlatformConfigUpdated integration event: the platform's own account per supported currency. */
export const fromPlatformConfigUpdated = (payload: unknown, msgId: string): AccountsToOpen | null => {
  const event = asRecord(payload) as Envelope;
  const data = asRecord(event.data);
  const supported = asRecord(data['changes'])['supportedCurrencies'];
  if (!Array.isArray(supported)) return null;
  return fromPlatformCreated({ ...event, data: { ...data, settings: { supportedCurrencies: supported } } }, msgId);
};

/**
 * Opens an ACTIVE internal account per currency: for each new customer (the customer's currencies,
 * which the customers service keeps within the platform's supported currencies and infers from
 * them when the platform gives none), for each currency a customer update adds, and for the
 * platform itself per supported currency, at creation and whenever its configuration adds one.
 */
@Injectable()
export class OpenAccountsPolicy implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = createLogger('accounts:open-accounts-policy');
  private nats?: NatsConnection;
  private consumers: { stop(): Promise<void> }[] = [];

  constructor(
    @Inject(ACCOUNTS_POLICY_OPTIONS) private readonly options: AccountsPolicyOptions,
    private readonly writer: AccountWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { natsUrl, natsAuth, subjectPrefix } = this.options;
    this.nats = await connect(natsConnectionOptions(natsUrl, natsAuth, 'accounts-policies'));
    const stream = eventsStreamName(subjectPrefix);
    // The accounts service may start before any service has published, so the stream may not exist yet.
    await ensureEventsStream(this.nats, { name: stream, subjects: [`${subjectPrefix}.events.>`] });
    // No processed-message record: opening is idempotent by construction (the account id derives
    // from owner and currency, and the decider decides nothing for an account already opened), so a
    // redelivered event costs one decision instead of two round trips on every event.
    const scope = { nc: this.nats, stream, subjectPrefix, logger: this.logger };
    // Opening is commutative as well as idempotent, so events need no order between them; many
    // at once share the writer's appends and one read-model wait instead of one each.
    const consume = (durable: string, event: string, read: (payload: unknown, msgId: string) => AccountsToOpen | null) =>
      consumeEvents(scope, durable, event, (payload, msgId) => this.open(read(payload, msgId), msgId), { concurrency: OPEN_CONCURRENCY });
    // An update without currencies is not malformed, just not this policy's business.
    const ignoreUnrelated = (read: (payload: unknown, msgId: string) => AccountsToOpen | null) => (payload: unknown, msgId: string) =>
      read(payload, msgId) ?? NOTHING_TO_OPEN;
    this.consumers = [
      await consume('accounts-open-customer-accounts', 'customers.Customer.CustomerCreated', fromCustomerCreated),
      await consume('accounts-open-platform-accounts', 'platform.Platform.PlatformCreated', fromPlatformCreated),
      await consume('accounts-open-customer-currency-accounts', 'customers.Customer.CustomerUpdated', ignoreUnrelated(fromCustomerUpdated)),
      await consume(
        'accounts-open-platform-currency-accounts',
        'platform.Platform.PlatformConfigUpdated',
        ignoreUnrelated(fromPlatformConfigUpdated),
      ),
    ];
  }

  // Consumers stop before the event store closes, so no message is cut off half handled.
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
    this.consumers = [];
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats?.drain();
  }

  private async open(request: AccountsToOpen | null, msgId: string): Promise<void> {
    // A malformed event will never become valid; redelivering it would only loop.
    if (!request) {
      this.logger.error({ msgId }, 'Ignoring an event without the ids an internal account needs.');
      return;
    }
    await this.openAccounts(request, msgId);
  }

  /**
   * Opens the owner's account per supported currency, all at once (they are different streams), and
   * answers their ids once the read model shows them. Also called by POST /customers before it
   * answers (decision 0027); the event's later delivery then finds every account opened and decides nothing.
   */
  async openAccounts(request: AccountsToOpen, msgId: string): Promise<string[]> {
    const { platformId, customerId, eventId, correlationId } = request;
    const context: RequestContext = {
      platformId,
      actor: { kind: 'system', name: 'accounts:open-accounts-policy' },
      requestId: eventId,
      correlationId,
    };
    const currencies = [...new Set(request.currencies)].filter((currency) => {
      if (isSupportedCurrency(currency)) return true;
      this.logger.warn({ msgId, currency }, 'Skipping a currency the ledger does not hold.');
      return false;
    });
    return Promise.all(
      currencies.map(async (currency) => {
        const accountId = internalAccountIdFor(customerId ?? platformId, currency);
        const data = {
          accountId,
          platformId,
          customerId,
          accountType: accountTypeFor(currency),
          currency,
          status: 'ACTIVE' as const,
          operationId: `open:${accountId}`,
        };
        await this.writer.apply(
          accountId,
          context,
          (state) => openInternalAccount({ type: 'OpenInternalAccount', data, metadata: { now: this.clock.now() } }, state),
          // Its second open (POST /customers', then the event's) costs no statement where this replica remembers the first.
          { assumeNew: true, isFinal: (state) => openIsFinal(data, state) },
        );
        return accountId;
      }),
    );
  }
}
