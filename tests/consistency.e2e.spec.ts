// Consistency right after every answer (issue 22). Read-your-writes across services (decision
// 0027): when POST /customers answers 201, the
// customer's internal accounts (and its Embedded Wallet, where the platform enables them) are
// already there, so a platform can list, fund and pay the customer at once. Creates run 16 at a
// time against two replicas of the accounts service, and nothing here waits or retries: every
// read comes straight after its customer's 201.
import { createApi, type Credentials } from './support/api';
import { waitUntil } from '@corridor/testing';
import { forgetIdempotencyRecord } from './support/idempotency';
import { type Stack, startStack } from './support/stack';

type Account = { id: string; customerId?: string; type: string; status: string; balance: { amount: number; currency: { code: string } } };

const AT_ONCE = 16;
const SENDER = '$success.usd@sandbox.uma.money';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let plain: Credentials;
let withWallets: Credentials;

const accountsOf = async (auth: Credentials, customerId: string): Promise<Account[]> => {
  const reply = await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth });
  expect(reply.status).toBe(200);
  return reply.body.data as Account[];
};

/** A customer whose USD account is listed; waits, so a case about something else does not depend on read-your-writes. */
const customerWithAccount = async (name: string): Promise<string> => {
  const customerId = await create(plain, name);
  await waitUntil(`${customerId}'s account`, async () => (await accountsOf(plain, customerId)).length === 1);
  return customerId;
};

const create = async (auth: Credentials, name: string, extra: Record<string, unknown> = {}): Promise<string> => {
  const reply = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: name, currencies: ['USD'], ...extra },
  });
  // The body too, so a refusal says why.
  expect({ status: reply.status, body: reply.status === 201 ? {} : reply.body }).toEqual({ status: 201, body: {} });
  return reply.body.id as string;
};

beforeAll(async () => {
  stack = await startStack({ replicasOf: { accounts: 2 } });
  api = createApi(stack, 'consistency');
  plain = (await stack.createPlatform()).token as Credentials;
  withWallets = (await stack.createPlatform()).token as Credentials;
  expect(
    (await api.call('PATCH', '/config', { auth: withWallets, body: { embeddedWalletConfig: { appName: 'Ryw Wallet' } } })).status,
  ).toBe(200);
  // A client's first request verifies its credential; a burst of first requests would be told to
  // wait (429, the verification gate), which is not what this suite is about. A first customer
  // warms every service's caches, as on a stack that has been serving for a while: a cold
  // customers service answers its first creates slowly enough to hide the lag being tested.
  await create(plain, 'Warm Up');
  await create(withWallets, 'Warm Up', { email: `warm.${Date.now()}@example.com` });
}, 240_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

describe('POST /customers answers once the customer can be used', () => {
  it(`lists, funds and pays each of ${AT_ONCE} customers created at once right after its 201`, async () => {
    const outcomes = await Promise.all(
      Array.from({ length: AT_ONCE }, async (_, index) => {
        // No currencies, as most platforms send: one account per currency the platform supports (four).
        const customerId = await create(plain, `Ada ${index}`, { currencies: undefined });
        const accounts = await accountsOf(plain, customerId);
        const usd = accounts.find((account) => account.balance.currency.code === 'USD');
        const funded = usd
          ? await api.call('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: plain, body: { amount: 500 } })
          : undefined;
        const received = await api.call('POST', '/sandbox/uma/receive', {
          auth: plain,
          body: { senderUmaAddress: SENDER, customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 },
        });
        const currencies = accounts
          .map((account) => account.balance.currency.code)
          .sort()
          .join(',');
        return { customerId, currencies, usd: usd?.status, funded: funded?.status, received: received.status, code: received.body.code };
      }),
    );
    // One line per customer, so a failure names every customer that was not ready.
    const unready = outcomes.filter(
      (outcome) =>
        outcome.currencies !== 'EUR,GBP,MXN,USD' || outcome.usd !== 'ACTIVE' || outcome.funded !== 200 || outcome.received !== 200,
    );
    expect(unready).toEqual([]);
  }, 120_000);

  it('shows the Embedded Wallet of a new customer of a platform that enables them right after its 201', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: AT_ONCE }, async (_, index) => {
        const customerId = await create(withWallets, `Wen ${index}`, { email: `wen.${index}.${Date.now()}@example.com` });
        const types = (await accountsOf(withWallets, customerId)).map((account) => account.type).sort();
        return { customerId, types };
      }),
    );
    expect(outcomes.filter((outcome) => outcome.types.join(',') !== 'EMBEDDED_WALLET,INTERNAL_FIAT')).toEqual([]);
  }, 120_000);

  it('a retry under the same Idempotency-Key answers the customer with its accounts, whatever the first attempt left', async () => {
    const key = `ryw-${Date.now()}`;
    const body = { customerType: 'INDIVIDUAL', fullName: 'Rita Retry', currencies: ['USD'] };
    const first = await api.call('POST', '/customers', { auth: plain, body, headers: { 'Idempotency-Key': key } });
    const again = await api.call('POST', '/customers', { auth: plain, body, headers: { 'Idempotency-Key': key } });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.id).toBe(first.body.id);
    expect((await accountsOf(plain, first.body.id as string)).length).toBe(1);
  }, 60_000);
});

describe('POST /transactions/{id}/confirm on an incoming payment', () => {
  it('answers 200 with the confirmation, with a body and without one, and GET shows it', async () => {
    const customerId = await customerWithAccount('Ines Incoming');
    const received = await api.call('POST', '/sandbox/uma/receive', {
      auth: plain,
      body: { senderUmaAddress: SENDER, customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 250 },
    });
    expect(received.status).toBe(200);
    const id = received.body.id as string;
    const given = await api.call('POST', `/transactions/${id}/confirm`, {
      auth: plain,
      body: { receiptDeliveryConfirmedAt: '2026-03-01T11:00:00Z' },
    });
    expect({ status: given.status, type: given.body.type, at: given.body.receiptDeliveryConfirmedAt }).toEqual({
      status: 200,
      type: 'INCOMING',
      at: '2026-03-01T11:00:00.000Z',
    });
    const bodiless = await api.call('POST', `/transactions/${id}/confirm`, { auth: plain });
    expect(bodiless.status).toBe(200);
    expect(Date.parse(bodiless.body.receiptDeliveryConfirmedAt as string)).toBeGreaterThan(Date.parse('2026-03-01T11:00:00Z'));
    const read = await api.call('GET', `/transactions/${id}`, { auth: plain });
    expect(read.body).toMatchObject({ id, type: 'INCOMING', receiptDeliveryConfirmedAt: bodiless.body.receiptDeliveryConfirmedAt });
  }, 60_000);
});

describe('card clearings and returns sent twice at once', () => {
  type Balances = { available: number; held: number };
  const balancesOf = async (customerId: string, accountId: string): Promise<Balances> => {
    const account = (await accountsOf(plain, customerId)).find((item) => item.id === accountId) as Account & {
      totalBalance: { amount: number };
    };
    return { available: account.balance.amount, held: account.totalBalance.amount - account.balance.amount };
  };
  const twice = <T>(send: () => Promise<T>): Promise<[T, T]> => Promise.all([send(), send()]);

  it('record one clearing and one return, as the ledger moves the money once; the other request is a 409', async () => {
    const customerId = await customerWithAccount('Cara Card');
    const usd = (await accountsOf(plain, customerId))[0]?.id ?? 'none';
    expect((await api.call('POST', `/sandbox/internal-accounts/${usd}/fund`, { auth: plain, body: { amount: 10_000 } })).status).toBe(200);
    const issued = await api.call('POST', '/cards', {
      auth: plain,
      body: { cardholderId: customerId, platformCardId: `c-${Date.now()}`, form: 'VIRTUAL', fundingSources: [usd] },
    });
    expect(issued.status).toBe(201);
    const cardId = issued.body.id as string;
    await waitUntil(
      'the card to be ACTIVE',
      async () => (await api.call('GET', `/cards/${cardId}`, { auth: plain })).body.state === 'ACTIVE',
      30_000,
    );
    const authorized = await api.call('POST', `/sandbox/cards/${cardId}/simulate/authorization`, {
      auth: plain,
      body: { amount: 1_000, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' } },
    });
    expect(authorized.status).toBe(200);
    // The authorization's hold shows at once (read-your-writes: the ledger answers after its read model has it).
    expect(await balancesOf(customerId, usd)).toEqual({ available: 9_000, held: 1_000 });
    const cardTransactionId = authorized.body.id as string;

    const clearings = await twice(() =>
      api.call('POST', `/sandbox/cards/${cardId}/simulate/clearing`, { auth: plain, body: { cardTransactionId, amount: 400 } }),
    );
    expect(clearings.map((reply) => reply.status).sort()).toEqual([200, 409]);
    expect(await balancesOf(customerId, usd)).toEqual({ available: 9_000, held: 600 });
    const cleared = clearings.find((reply) => reply.status === 200)?.body;
    expect(cleared).toMatchObject({ status: 'PARTIALLY_SETTLED', settlementSummary: { count: 1, totalAmount: 400 } });

    const returns = await twice(() =>
      api.call('POST', `/sandbox/cards/${cardId}/simulate/return`, { auth: plain, body: { cardTransactionId, amount: 150 } }),
    );
    expect(returns.map((reply) => reply.status).sort()).toEqual([200, 409]);
    expect(returns.find((reply) => reply.status === 200)?.body).toMatchObject({ refundSummary: { count: 1, totalAmount: 150 } });
    expect(await balancesOf(customerId, usd)).toEqual({ available: 9_150, held: 600 });
  }, 90_000);
});

describe('a different request under a used Idempotency-Key is a 409 once the gateway record is gone (decision 0028)', () => {
  // The gateway keeps a key's answer in Redis for 24 h, and Redis keeps nothing across a restart;
  // each case clears that record, so the service alone must tell a retry from another request.
  const twiceUnderOneKey = async (path: string, first: Record<string, unknown>, second: Record<string, unknown>) => {
    const key = `other${path.replace(/\//g, '-')}-${Date.now()}`;
    const headers = { 'Idempotency-Key': key };
    const made = await api.call('POST', path, { auth: plain, body: first, headers });
    expect({ status: made.status < 300 ? 'created' : made.status, body: made.status < 300 ? {} : made.body }).toEqual({
      status: 'created',
      body: {},
    });
    await forgetIdempotencyRecord(stack, key);
    const same = await api.call('POST', path, { auth: plain, body: first, headers });
    await forgetIdempotencyRecord(stack, key);
    const other = await api.call('POST', path, { auth: plain, body: second, headers });
    return { made, same, other };
  };

  it('POST /customers', async () => {
    const { made, same, other } = await twiceUnderOneKey(
      '/customers',
      { customerType: 'INDIVIDUAL', fullName: 'Kay One', currencies: ['USD'] },
      { customerType: 'INDIVIDUAL', fullName: 'Kay Two', currencies: ['USD'] },
    );
    expect([made.status, same.status, same.body.id, other.status, other.body.details]).toEqual([
      201,
      201,
      made.body.id,
      409,
      { field: 'Idempotency-Key', resourceId: made.body.id },
    ]);
  }, 60_000);

  it('POST /sandbox/uma/receive', async () => {
    const customerId = await customerWithAccount('Kim Receive');
    const body = (amount: number) => ({
      senderUmaAddress: SENDER,
      customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: amount,
    });
    const { made, same, other } = await twiceUnderOneKey('/sandbox/uma/receive', body(300), body(301));
    expect([made.status, same.status, same.body.id, other.status, other.body.details]).toEqual([
      200,
      200,
      made.body.id,
      409,
      { field: 'Idempotency-Key', resourceId: made.body.id },
    ]);
  }, 60_000);

  it('POST /agents', async () => {
    const customerId = await create(plain, 'Kit Agent');
    const policy = {
      permissions: ['VIEW_TRANSACTIONS'],
      defaultExecutionMode: 'AUTO',
      spendingLimits: { currency: 'USD', perTransactionLimit: 1_000 },
    };
    const { made, same, other } = await twiceUnderOneKey(
      '/agents',
      { name: 'Kit 1', customerId, policy },
      { name: 'Kit 2', customerId, policy },
    );
    expect([made.status, same.status, same.body.agent?.id, other.status, other.body.details]).toEqual([
      201,
      201,
      made.body.agent.id,
      409,
      { field: 'Idempotency-Key', resourceId: made.body.agent.id },
    ]);
  }, 60_000);
});
