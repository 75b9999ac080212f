// Runs the accounts service in-process against real PostgreSQL and NATS: accounts opened by the
// customer-created policy, exact balances under 200 concurrent holds, idempotent credits, and
// one platform never seeing another's accounts.
import type { INestMicroservice } from '@nestjs/common';
import {
  type CreditData,
  DomainError,
  type FundInternalAccountData,
  type HoldData,
  type InternalAccountWire,
  type ListInternalAccountsData,
  newId,
  type Page,
  postingsOf,
  type ReleaseHoldData,
  type RenderInternalAccountAtData,
  type SettleHoldData,
  subjects,
} from '@corridor/contracts';
import { createPostgresEventStore } from '@corridor/event-store';
import { createServiceApp, publishEvent, ServiceClient } from '@corridor/messaging';
import {
  assertLedgerConserved,
  deleteEventsStream,
  domainErrorOf,
  requireNats,
  tokenContext,
  uniqueSubjectPrefix,
  useTestDatabase,
} from '@corridor/testing';
import { connect, type NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { toIntegrationEvent } from '../integration-events';
import { AccountWriter } from './account-writer';
import { changeAccountStatus } from './change-account-status';
import { evolveInternalAccount, type InternalAccount, type InternalAccountEvent, initialInternalAccount } from './internal-account';

const database = useTestDatabase();

const POLL_DEADLINE_MS = 15_000;
const LONG_REQUEST_MS = 60_000;

let subjectPrefix: string;
let app: INestMicroservice;
let client: ServiceClient;
let nats: NatsConnection;

const call = <Reply>(subject: string, data: unknown, platformId: string): Promise<Reply> =>
  client.request<Reply>(subject, data, { context: tokenContext(platformId), timeoutMs: LONG_REQUEST_MS });

/** Publishes a CustomerCreated integration event shaped as apps/customers/src/integration-events.ts makes it. */
const publishCustomerCreated = async (
  platformId: string,
  customerId: string,
  currencies: string[],
  msgId = randomUUID(),
): Promise<void> => {
  const occurredAt = new Date().toISOString();
  const payload = {
    eventId: randomUUID(),
    type: 'CustomerCreated',
    streamId: customerId,
    streamPosition: 1,
    occurredAt,
    platformId,
    correlationId: randomUUID(),
    data: {
      customerId,
      platformId,
      customerType: 'INDIVIDUAL',
      profile: { platformCustomerId: customerId, umaAddress: `$${customerId.slice(-8)}@example.com`, currencies },
      verificationStatus: 'APPROVED',
      createdAt: occurredAt,
    },
  };
  await publishEvent(nats.jetstream(), `${subjectPrefix}.events.customers.Customer.CustomerCreated`, payload, msgId);
};

const listOf = (platformId: string, filters: Partial<ListInternalAccountsData> = {}) =>
  call<Page<InternalAccountWire>>(subjects.accounts.internalAccount.list, { limit: 100, ...filters }, platformId);

/** The policy works asynchronously; wait (bounded) until the customer has `count` accounts. */
const waitForAccounts = async (platformId: string, customerId: string, count: number): Promise<InternalAccountWire[]> => {
  const deadline = Date.now() + POLL_DEADLINE_MS;
  for (;;) {
    const page = await listOf(platformId, { customerId });
    if (page.data.length >= count || Date.now() > deadline) return page.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const newCustomerAccount = async (platformId: string, currency = 'USD'): Promise<InternalAccountWire> => {
  const customerId = newId('Customer');
  await publishCustomerCreated(platformId, customerId, [currency]);
  const [account] = await waitForAccounts(platformId, customerId, 1);
  if (!account) throw new Error(`No account was opened for ${customerId}.`);
  return account;
};

const accountOf = async (platformId: string, accountId: string): Promise<InternalAccountWire> => {
  const page = await listOf(platformId);
  const account = page.data.find((candidate) => candidate.id === accountId);
  if (!account) throw new Error(`${accountId} is not listed.`);
  return account;
};

/** Folds the account's stream, asserting the available balance never went below zero. */
const foldStream = async (accountId: string): Promise<{ state: InternalAccount; lowest: bigint; events: InternalAccountEvent[] }> => {
  const store = createPostgresEventStore({ connectionString: database.url, schema: 'accounts' });
  try {
    const { events } = await store.readStream(accountId);
    let state = initialInternalAccount();
    let lowest = 0n;
    for (const event of events) {
      state = evolveInternalAccount(state, event as unknown as InternalAccountEvent);
      if (state.kind === 'Open' && state.available < lowest) lowest = state.available;
    }
    return { state, lowest, events: events as unknown as InternalAccountEvent[] };
  } finally {
    await store.close();
  }
};

beforeAll(async () => {
  await requireNats();
  subjectPrefix = uniqueSubjectPrefix();
  const { healthPort: _healthPort, ...defaults } = loadConfig({});
  const config = { ...defaults, healthPort: 0, databaseUrl: database.url, subjectPrefix, logLevel: 'warn' };
  app = await createServiceApp(AppModule.register(config), {
    service: 'accounts',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await app.listen();
  client = app.get(ServiceClient);
  nats = await connect({ servers: config.natsUrl, name: 'accounts-int-spec' });
});

afterAll(async () => {
  await nats?.drain();
  await app?.close();
  await deleteEventsStream(subjectPrefix);
});

describe('the accounts service', () => {
  it('opens one account per currency for a new customer, once even when the event is published twice', async () => {
    const platformId = newId('Platform');
    const customerId = newId('Customer');
    await publishCustomerCreated(platformId, customerId, ['USD', 'EUR', 'USDC']);
    // A republish under another message id gets past JetStream's and the processed store's dedupe.
    await publishCustomerCreated(platformId, customerId, ['USD', 'EUR', 'USDC']);
    // The consumer handles events in order, so once a later customer's account exists both copies were handled.
    await newCustomerAccount(platformId);
    const accounts = await waitForAccounts(platformId, customerId, 3);
    expect(accounts.map((account) => [account.balance.currency.code, account.type, account.status, account.customerId]).sort()).toEqual([
      ['EUR', 'INTERNAL_FIAT', 'ACTIVE', customerId],
      ['USD', 'INTERNAL_FIAT', 'ACTIVE', customerId],
      ['USDC', 'INTERNAL_CRYPTO', 'ACTIVE', customerId],
    ]);
    expect(accounts.every((account) => account.balance.amount === 0 && account.totalBalance.amount === 0)).toBe(true);
    for (const account of accounts)
      expect((await foldStream(account.id)).events.map((event) => event.type)).toEqual(['InternalAccountOpened']);
  });

  it('opens the platform’s own accounts, without a customer, when a platform is created', async () => {
    const platformId = newId('Platform');
    const payload = {
      eventId: randomUUID(),
      type: 'PlatformCreated',
      streamId: platformId,
      occurredAt: new Date().toISOString(),
      platformId,
      data: { platformId, settings: { supportedCurrencies: [{ currencyCode: 'USD' }, { currencyCode: 'BTC' }] } },
    };
    await publishEvent(nats.jetstream(), `${subjectPrefix}.events.platform.Platform.PlatformCreated`, payload, randomUUID());
    const deadline = Date.now() + POLL_DEADLINE_MS;
    let listed: InternalAccountWire[] = [];
    while (listed.length < 2 && Date.now() < deadline) {
      listed = (await call<{ data: InternalAccountWire[] }>(subjects.accounts.internalAccount.listPlatform, {}, platformId)).data;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(listed.map((account) => [account.balance.currency.code, account.type, 'customerId' in account]).sort()).toEqual([
      ['BTC', 'INTERNAL_CRYPTO', false],
      ['USD', 'INTERNAL_FIAT', false],
    ]);
    // The customers' list never shows the platform's own accounts.
    expect((await listOf(platformId)).data).toEqual([]);
  });

  it('opens a platform account for each currency a configuration update adds, and none for other updates', async () => {
    const platformId = newId('Platform');
    const publishPlatformEvent = (type: string, data: Record<string, unknown>) =>
      publishEvent(
        nats.jetstream(),
        `${subjectPrefix}.events.platform.Platform.${type}`,
        {
          eventId: randomUUID(),
          type,
          streamId: platformId,
          occurredAt: new Date().toISOString(),
          platformId,
          correlationId: randomUUID(),
          data,
        },
        randomUUID(),
      );
    await publishPlatformEvent('PlatformCreated', { platformId, settings: { supportedCurrencies: [{ currencyCode: 'USD' }] } });
    const changes = { supportedCurrencies: [{ currencyCode: 'USD' }, { currencyCode: 'EUR' }, { currencyCode: 'USDC' }] };
    await publishPlatformEvent('PlatformConfigUpdated', { platformId, changes });
    await publishPlatformEvent('PlatformConfigUpdated', { platformId, changes });
    await publishPlatformEvent('PlatformConfigUpdated', { platformId, changes: { webhookEndpoint: 'https://example.com/hook' } });
    const deadline = Date.now() + POLL_DEADLINE_MS;
    let listed: InternalAccountWire[] = [];
    while (listed.length < 3 && Date.now() < deadline) {
      listed = (await call<{ data: InternalAccountWire[] }>(subjects.accounts.internalAccount.listPlatform, {}, platformId)).data;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(listed.map((account) => account.balance.currency.code).sort()).toEqual(['EUR', 'USD', 'USDC']);
    for (const account of listed)
      expect((await foldStream(account.id)).events.map((event) => event.type)).toEqual(['InternalAccountOpened']);
  });

  it('holds exactly the funded amount under 200 concurrent holds, then settles and releases them', async () => {
    const platformId = newId('Platform');
    const account = await newCustomerAccount(platformId);
    const funded = await call<InternalAccountWire>(
      subjects.accounts.internalAccount.fund,
      { accountId: account.id, amount: 50 } satisfies FundInternalAccountData,
      platformId,
    );
    expect(funded.balance.amount).toBe(50);

    const holds = await Promise.allSettled(
      Array.from({ length: 200 }, (_, index) =>
        call<InternalAccountWire>(
          subjects.accounts.ledger.hold,
          {
            accountId: account.id,
            operationId: `hold-op-${index}`,
            holdId: `hold-${index}`,
            amount: '1',
            currency: 'USD',
            cause: { kind: 'TRANSACTION', id: `Transaction:${index}` },
          } satisfies HoldData,
          platformId,
        ),
      ),
    );
    const succeeded = holds.flatMap((result, index) => (result.status === 'fulfilled' ? [{ index, reply: result.value }] : []));
    const failures = holds.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(succeeded).toHaveLength(50);
    expect(failures.map((error) => (error instanceof DomainError ? error.code : String(error)))).toEqual(
      Array(150).fill('INSUFFICIENT_FUNDS'),
    );
    expect(succeeded.every(({ reply }) => reply.balance.amount >= 0)).toBe(true);
    expect((await accountOf(platformId, account.id)).balance.amount).toBe(0);
    expect((await accountOf(platformId, account.id)).totalBalance.amount).toBe(50);

    const closing = succeeded.map(({ index }, position) =>
      position % 2 === 0
        ? call(
            subjects.accounts.ledger.settle,
            { accountId: account.id, operationId: `settle-op-${index}`, holdId: `hold-${index}` } satisfies SettleHoldData,
            platformId,
          )
        : call(
            subjects.accounts.ledger.release,
            { accountId: account.id, operationId: `release-op-${index}`, holdId: `hold-${index}` } satisfies ReleaseHoldData,
            platformId,
          ),
    );
    await Promise.all(closing);
    const after = await accountOf(platformId, account.id);
    expect([after.balance.amount, after.totalBalance.amount]).toEqual([25, 25]);

    const { state, lowest, events } = await foldStream(account.id);
    expect(lowest).toBe(0n);
    expect(state.kind === 'Open' && [state.available, state.held]).toEqual([25n, 0n]);
    // Double entry: the postings of every event sum to zero, and the account's own legs equal its balance.
    const postings = events.flatMap(postingsOf);
    expect(postings.reduce((sum, posting) => sum + posting.amount, 0n)).toBe(0n);
    expect(postings.filter((posting) => posting.accountId === account.id).reduce((sum, posting) => sum + posting.amount, 0n)).toBe(25n);
  });

  it('stays exact when 200 holds race with the settles and releases of the holds that won', async () => {
    const platformId = newId('Platform');
    const account = await newCustomerAccount(platformId);
    await call(subjects.accounts.internalAccount.fund, { accountId: account.id, amount: 50 } satisfies FundInternalAccountData, platformId);

    // Each caller holds 1 and, if it won, settles (even) or releases (odd) at once: releases hand
    // funds back while other holds are still arriving, so more than 50 holds may win over time.
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const hold: HoldData = {
          accountId: account.id,
          operationId: `mix-hold-${index}`,
          holdId: `mix-${index}`,
          amount: '1',
          currency: 'USD',
          cause: { kind: 'TRANSACTION', id: `Transaction:mix-${index}` },
        };
        try {
          await call(subjects.accounts.ledger.hold, hold, platformId);
        } catch (error) {
          return error instanceof DomainError ? error.code : String(error);
        }
        if (index % 2 === 0) {
          await call(
            subjects.accounts.ledger.settle,
            { accountId: account.id, operationId: `mix-settle-${index}`, holdId: `mix-${index}` } satisfies SettleHoldData,
            platformId,
          );
          return 'SETTLED';
        }
        await call(
          subjects.accounts.ledger.release,
          { accountId: account.id, operationId: `mix-release-${index}`, holdId: `mix-${index}` } satisfies ReleaseHoldData,
          platformId,
        );
        return 'RELEASED';
      }),
    );
    const settled = outcomes.filter((outcome) => outcome === 'SETTLED').length;
    const released = outcomes.filter((outcome) => outcome === 'RELEASED').length;
    const refused = outcomes.filter((outcome) => outcome === 'INSUFFICIENT_FUNDS').length;
    expect(settled + released + refused).toBe(200);
    expect(settled).toBeGreaterThanOrEqual(1);
    expect(settled).toBeLessThanOrEqual(50);

    const after = await accountOf(platformId, account.id);
    expect([after.balance.amount, after.totalBalance.amount]).toEqual([50 - settled, 50 - settled]);
    const { state, lowest } = await foldStream(account.id);
    expect(lowest).toBe(0n);
    expect(state.kind === 'Open' && [state.available, state.held, state.holds.size]).toEqual([BigInt(50 - settled), 0n, 0]);
  });

  it('credits once for a repeated operationId', async () => {
    const platformId = newId('Platform');
    const account = await newCustomerAccount(platformId);
    const credit: CreditData = {
      accountId: account.id,
      operationId: 'credit-once',
      amount: '700',
      currency: 'USD',
      cause: { kind: 'FUNDING', id: 'Funding:1' },
    };
    const replies = await Promise.all([1, 2, 3].map(() => call<InternalAccountWire>(subjects.accounts.ledger.credit, credit, platformId)));
    const again = await call<InternalAccountWire>(subjects.accounts.ledger.credit, credit, platformId);
    expect([...replies, again].map((reply) => reply.balance.amount)).toEqual([700, 700, 700, 700]);
    expect((await foldStream(account.id)).events.filter((event) => event.type === 'AccountCredited')).toHaveLength(1);
  });

  it(
    'holds and settles at once in one request when asked to (an instant rail), once however often asked, and refuses both when funds ' +
      'are short',
    async () => {
      const platformId = newId('Platform');
      const account = await newCustomerAccount(platformId);
      await call(
        subjects.accounts.internalAccount.fund,
        { accountId: account.id, amount: 500 } satisfies FundInternalAccountData,
        platformId,
      );
      const hold: HoldData = {
        accountId: account.id,
        operationId: 'instant-hold',
        holdId: 'instant',
        amount: '300',
        currency: 'USD',
        cause: { kind: 'TRANSACTION', id: 'Transaction:instant' },
        settleOperationId: 'instant-settle',
      };
      const replies = await Promise.all([1, 2].map(() => call<InternalAccountWire>(subjects.accounts.ledger.hold, hold, platformId)));
      // The same settle asked for on its own afterwards (as after a crash) changes nothing.
      await call(
        subjects.accounts.ledger.settle,
        { accountId: account.id, operationId: 'instant-settle', holdId: 'instant' } satisfies SettleHoldData,
        platformId,
      );
      expect(replies.map((reply) => [reply.balance.amount, reply.totalBalance.amount])).toEqual([
        [200, 200],
        [200, 200],
      ]);
      const { events, state } = await foldStream(account.id);
      const moved = events.filter((event) => event.type === 'FundsHeld' || event.type === 'HoldSettled');
      expect(moved.map((event) => event.type)).toEqual(['FundsHeld', 'HoldSettled']);
      expect(state.kind === 'Open' && [state.available, state.held]).toEqual([200n, 0n]);
      const short = await domainErrorOf(
        call(
          subjects.accounts.ledger.hold,
          { ...hold, operationId: 'instant-hold-2', holdId: 'instant-2', settleOperationId: 'instant-settle-2' },
          platformId,
        ),
      );
      expect([short.code, short.status]).toEqual(['INSUFFICIENT_FUNDS', 400]);
      expect((await foldStream(account.id)).events).toHaveLength(events.length);
    },
  );

  it('refuses amounts that are not whole minor units', async () => {
    const platformId = newId('Platform');
    const account = await newCustomerAccount(platformId);
    const error = await domainErrorOf(
      call(
        subjects.accounts.ledger.credit,
        { accountId: account.id, operationId: 'bad', amount: '1.5', currency: 'USD', cause: { kind: 'FUNDING', id: 'x' } },
        platformId,
      ),
    );
    expect([error.code, error.status, error.details?.['field']]).toEqual(['INVALID_INPUT', 400, 'amount']);
    const fund = await domainErrorOf(call(subjects.accounts.internalAccount.fund, { accountId: account.id, amount: 0.5 }, platformId));
    expect([fund.status, fund.details?.['field']]).toEqual([400, 'amount']);
  });

  it('hides one platform’s accounts from another', async () => {
    const owner = newId('Platform');
    const stranger = newId('Platform');
    const account = await newCustomerAccount(owner);
    await call(subjects.accounts.internalAccount.fund, { accountId: account.id, amount: 10 }, owner);
    const hold = await domainErrorOf(
      call(
        subjects.accounts.ledger.hold,
        {
          accountId: account.id,
          operationId: 'steal',
          holdId: 'steal',
          amount: '1',
          currency: 'USD',
          cause: { kind: 'TRANSACTION', id: 't' },
        },
        stranger,
      ),
    );
    expect([hold.code, hold.status]).toEqual(['REFERENCE_NOT_FOUND', 404]);
    const fund = await domainErrorOf(call(subjects.accounts.internalAccount.fund, { accountId: account.id, amount: 10 }, stranger));
    expect(fund.code).toBe('REFERENCE_NOT_FOUND');
    const update = await domainErrorOf(
      call(subjects.accounts.embeddedWallet.updateAccount, { accountId: account.id, body: { privateEnabled: true } }, stranger),
    );
    expect(update.code).toBe('REFERENCE_NOT_FOUND');
    const renderAt = await domainErrorOf(
      call(subjects.accounts.internalAccount.renderAt, { accountId: account.id, streamPosition: 1 }, stranger),
    );
    expect([renderAt.code, renderAt.status]).toEqual(['REFERENCE_NOT_FOUND', 404]);
    const get = await domainErrorOf(call(subjects.accounts.internalAccount.get, { accountId: account.id }, stranger));
    expect([get.code, get.status]).toEqual(['REFERENCE_NOT_FOUND', 404]);
    const malformed = await domainErrorOf(call(subjects.accounts.internalAccount.get, { accountId: 'InternalAccount:nope' }, owner));
    expect([malformed.code, malformed.status]).toEqual(['REFERENCE_NOT_FOUND', 404]);
    const own = await call<InternalAccountWire>(subjects.accounts.internalAccount.get, { accountId: account.id }, owner);
    expect([own.id, own.customerId, own.balance.amount]).toEqual([account.id, account.customerId, 10]);
    expect((await listOf(stranger)).data.map((listed) => listed.id)).not.toContain(account.id);
    expect((await listOf(stranger, { customerId: account.customerId ?? '' })).data).toEqual([]);
    expect((await accountOf(owner, account.id)).balance.amount).toBe(10);
  });
});

describe('rendering an account as of a stream position', () => {
  it('gives the balance after each event, dated by that event', async () => {
    const platformId = newId('Platform');
    const account = await newCustomerAccount(platformId);
    await call(
      subjects.accounts.internalAccount.fund,
      { accountId: account.id, amount: 1000 } satisfies FundInternalAccountData,
      platformId,
    );
    const hold: HoldData = {
      accountId: account.id,
      operationId: 'render-hold',
      holdId: 'render-hold',
      amount: '300',
      currency: 'USD',
      cause: { kind: 'TRANSACTION', id: 'Transaction:r' },
    };
    await call(subjects.accounts.ledger.hold, hold, platformId);
    await call(
      subjects.accounts.ledger.settle,
      { accountId: account.id, operationId: 'render-settle', holdId: 'render-hold', amount: '200' } satisfies SettleHoldData,
      platformId,
    );

    const renderAt = (streamPosition: number) =>
      call<InternalAccountWire>(
        subjects.accounts.internalAccount.renderAt,
        { accountId: account.id, streamPosition } satisfies RenderInternalAccountAtData,
        platformId,
      );
    const rendered = await Promise.all([1, 2, 3, 4].map(renderAt));
    expect(rendered.map((wire) => [wire.balance.amount, wire.totalBalance.amount])).toEqual([
      [0, 0],
      [1000, 1000],
      [700, 1000],
      [800, 800],
    ]);
    const store = createPostgresEventStore({ connectionString: database.url, schema: 'accounts' });
    try {
      const recorded = (await store.readStream(account.id)).events;
      expect(recorded).toHaveLength(4);
      expect(rendered.map((wire) => wire.updatedAt)).toEqual(recorded.map((event) => new Date(event.metadata.occurredAt).toISOString()));
    } finally {
      await store.close();
    }
    // The last position renders exactly what the read model lists now.
    expect(rendered[3]).toEqual(await accountOf(platformId, account.id));
    expect(rendered[0]?.fundingPaymentInstructions).toEqual(account.fundingPaymentInstructions);

    const beyond = await domainErrorOf(renderAt(5));
    expect([beyond.code, beyond.status]).toEqual(['REFERENCE_NOT_FOUND', 404]);
    const invalid = await domainErrorOf(renderAt(0));
    expect([invalid.status, invalid.details?.['field']]).toEqual([400, 'streamPosition']);
  });
});

describe('the account an internal account event publishes (decision 0054)', () => {
  it('is the same bytes renderAt answers for that event: after a credit, a hold, a settle and a status change', async () => {
    const platformId = newId('Platform');
    const account = await newCustomerAccount(platformId);
    await call(
      subjects.accounts.internalAccount.fund,
      { accountId: account.id, amount: 1000 } satisfies FundInternalAccountData,
      platformId,
    );
    const hold: HoldData = {
      accountId: account.id,
      operationId: 'inline-hold',
      holdId: 'inline-hold',
      amount: '300',
      currency: 'USD',
      cause: { kind: 'TRANSACTION', id: 'Transaction:i' },
    };
    await call(subjects.accounts.ledger.hold, hold, platformId);
    await call(
      subjects.accounts.ledger.settle,
      { accountId: account.id, operationId: 'inline-settle', holdId: 'inline-hold', amount: '200' } satisfies SettleHoldData,
      platformId,
    );
    // No subject changes an account's status yet; the writer is what would.
    const data = { accountId: account.id, platformId, operationId: 'inline-freeze', to: 'FROZEN' as const };
    await app
      .get(AccountWriter)
      .apply(account.id, tokenContext(platformId), (state) =>
        changeAccountStatus({ type: 'ChangeAccountStatus', data, metadata: { now: new Date() } }, state),
      );

    const store = createPostgresEventStore({ connectionString: database.url, schema: 'accounts' });
    const recorded = await store.readStream(account.id).finally(() => store.close());
    expect(recorded.events.map((event) => event.type)).toEqual([
      'InternalAccountOpened',
      'AccountCredited',
      'FundsHeld',
      'HoldSettled',
      'AccountStatusChanged',
    ]);
    for (const event of recorded.events) {
      const published = (toIntegrationEvent(event)?.payload as { data: Record<string, unknown> }).data['account'];
      const rendered = await call<InternalAccountWire>(
        subjects.accounts.internalAccount.renderAt,
        { accountId: account.id, streamPosition: event.streamPosition } satisfies RenderInternalAccountAtData,
        platformId,
      );
      expect(JSON.stringify(published)).toBe(JSON.stringify(rendered));
    }
    const last = (toIntegrationEvent(recorded.events[4]!)?.payload as { data: { account: InternalAccountWire } }).data.account;
    expect([last.status, last.balance.amount, last.totalBalance.amount]).toEqual(['FROZEN', 800, 800]);
  });
});

describe('after every scenario above', () => {
  it('keeps the books: per currency the postings sum to zero and each balance is the sum of its postings', async () => {
    const summary = await assertLedgerConserved({ connectionString: database.url, schema: 'accounts' });
    // Funding, the 25 settles and the credits above: the check had real movements to judge.
    expect(summary.postings).toBeGreaterThanOrEqual(56);
  });
});
