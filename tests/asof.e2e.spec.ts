// asOf reads (decision 0039) with every app running: an internal account's balance as the ledger
// saw it at a past moment while later movements have landed (customers' and the platform's lists,
// holds and settlements folded); quotes, cards and customers as they stood then; before a resource
// existed and for another platform a 404 like an unknown id; an agent sees only its customer's
// accounts and its own quotes as of a time; a time that is no time is a 400 naming asOf.
import { createApi, type Credentials } from './support/api';
import { eventually } from '@corridor/testing';
import { type Account, type Customer, paymentHelpers } from './support/payments';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';

let stack: StackView;
let api: ReturnType<typeof createApi>;
let pay: ReturnType<typeof paymentHelpers>;
let platformA: Credentials;
let platformB: Credentials;
let alice: Customer;
let bob: Customer;

/** A moment strictly between what happened before the call and what happens after it (timestamps are in milliseconds). */
const instant = async (): Promise<string> => {
  const at = new Date();
  while (Date.now() <= at.getTime() + 1) await new Promise((resolve) => setTimeout(resolve, 2));
  return at.toISOString();
};

const get = (auth: Credentials | string, path: string, asOf?: string) =>
  api.call('GET', asOf === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}asOf=${encodeURIComponent(asOf)}`, { auth });

const accountsOf = async (auth: Credentials | string, path: string, asOf?: string): Promise<Account[]> => {
  const reply = await get(auth, path, asOf);
  expect(reply.status).toBe(200);
  return reply.body.data as Account[];
};

const customerAccounts = (customer: Customer, currency: string) =>
  `/customers/internal-accounts?customerId=${encodeURIComponent(customer.customerId)}&currency=${currency}`;

/** [available, total] of the one account a list answers. */
const balancesIn = (accounts: Account[]): [number, number] => {
  const [account, ...others] = accounts;
  if (!account || others.length > 0) throw new Error(`Expected one account, got ${JSON.stringify(accounts)}.`);
  return [account.balance.amount, account.totalBalance.amount];
};

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'asof');
  pay = paymentHelpers(stack, api);
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  alice = await pay.newCustomer(platformA, ['USD']);
  bob = await pay.newCustomer(platformA, ['USD']);
}, 360_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

describe('internal accounts', () => {
  it('An as-of balance equals the ledger at that moment while later movements have landed', async () => {
    const usd = pay.accountIn(alice, 'USD');
    const balances = () => pay.balances(platformA, alice, 'USD');
    await pay.fund(platformA, usd, 50_000);
    const atT = await eventually(balances, ([available]) => available === 50_000);
    expect(atT).toEqual([50_000, 50_000]);
    const t = await instant();

    // Later: one payment holds and settles; a long one (sandbox suffix 003) is still held at T2.
    const paid = await pay.quote(platformA, usd, await pay.euroAccount(platformA, alice.customerId), 5_000);
    expect((await pay.execute(platformA, paid.body.id)).status).toBe(200);
    expect((await pay.settled(platformA, paid.body.transactionId)).status).toBe('COMPLETED');
    const long = await pay.quote(platformA, usd, await pay.euroAccount(platformA, alice.customerId, '003'), 2_000);
    expect((await pay.execute(platformA, long.body.id)).status).toBe(200);
    const [paidAmount, heldAmount] = [paid.body.totalSendingAmount as number, long.body.totalSendingAmount as number];
    const atT2 = await eventually(balances, ([available]) => available === 50_000 - paidAmount - heldAmount);
    expect(atT2).toEqual([50_000 - paidAmount - heldAmount, 50_000 - paidAmount]);
    const t2 = await instant();
    await pay.fund(platformA, usd, 700);
    const now = await eventually(balances, ([available]) => available === atT2[0] + 700);

    expect(balancesIn(await accountsOf(platformA, customerAccounts(alice, 'USD'), t))).toEqual(atT);
    expect(balancesIn(await accountsOf(platformA, customerAccounts(alice, 'USD'), t2))).toEqual(atT2);
    expect(now).not.toEqual(atT);
    expect(now).not.toEqual(atT2);
  }, 120_000);

  it('answers the platform’s own accounts as of a time too, and none before they were opened', async () => {
    const [usd] = await accountsOf(platformA, '/platform/internal-accounts?currency=USD');
    const fund = (amount: number) =>
      api.call('POST', `/sandbox/internal-accounts/${usd?.id ?? 'none'}/fund`, { auth: platformA, body: { amount } });
    const funded = await fund(900);
    expect(funded.status).toBe(200);
    const seen = await eventually(
      async () => balancesIn(await accountsOf(platformA, '/platform/internal-accounts?currency=USD')),
      ([available]) => available === funded.body.balance.amount,
    );
    const t = await instant();
    expect((await fund(40)).status).toBe(200);
    await eventually(
      async () => balancesIn(await accountsOf(platformA, '/platform/internal-accounts?currency=USD')),
      ([available]) => available === seen[0] + 40,
    );

    expect(balancesIn(await accountsOf(platformA, '/platform/internal-accounts?currency=USD', t))).toEqual(seen);
    expect(await accountsOf(platformA, '/platform/internal-accounts', '2020-01-01T00:00:00Z')).toEqual([]);
    expect(await accountsOf(platformA, customerAccounts(alice, 'USD'), '2020-01-01T00:00:00Z')).toEqual([]);
  }, 60_000);
});

describe('quotes, cards and customers', () => {
  it('answers a quote as it stood: 404 before it was created, PENDING before execution, COMPLETED now', async () => {
    const usd = pay.accountIn(bob, 'USD');
    await pay.fund(platformA, usd, 10_000);
    const before = await instant();
    const quoted = await pay.quote(platformA, usd, await pay.euroAccount(platformA, bob.customerId), 1_000);
    expect(quoted.status).toBe(201);
    const created = await instant();
    expect((await pay.execute(platformA, quoted.body.id)).status).toBe(200);
    expect((await pay.settled(platformA, quoted.body.transactionId)).status).toBe('COMPLETED');
    const path = `/quotes/${quoted.body.id as string}`;

    expect((await get(platformA, path, before)).body).toMatchObject({ status: 404, code: 'QUOTE_NOT_FOUND' });
    expect((await get(platformA, path, created)).body).toEqual({ ...quoted.body, status: 'PENDING' });
    expect((await get(platformA, path)).body).toMatchObject({ id: quoted.body.id, status: 'COMPLETED' });
    expect((await get(platformB, path, created)).body).toMatchObject({ status: 404, code: 'QUOTE_NOT_FOUND' });
  }, 120_000);

  it('answers a card as it stood before it was frozen', async () => {
    const issued = await api.call('POST', '/cards', {
      auth: platformA,
      body: {
        cardholderId: alice.customerId,
        platformCardId: `asof-${Date.now()}`,
        form: 'VIRTUAL',
        fundingSources: [pay.accountIn(alice, 'USD')],
      },
    });
    expect(issued.status).toBe(201);
    const path = `/cards/${issued.body.id as string}`;
    await eventually(
      async () => (await get(platformA, path)).body.state,
      (state) => state === 'ACTIVE',
    );
    const active = await instant();
    expect((await api.call('PATCH', path, { auth: platformA, body: { state: 'FROZEN' } })).body.state).toBe('FROZEN');

    expect((await get(platformA, path, active)).body).toMatchObject({ id: issued.body.id, state: 'ACTIVE' });
    expect((await get(platformA, path)).body.state).toBe('FROZEN');
    expect((await get(platformA, path, '2020-01-01T00:00:00Z')).body).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
    expect((await get(platformB, path, active)).body).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
  }, 60_000);

  it('answers a customer with the field it had before a later update', async () => {
    const path = `/customers/${bob.customerId}`;
    const old = (await get(platformA, path)).body;
    const t = await instant();
    const updated = await api.call('PATCH', path, {
      auth: platformA,
      body: { customerType: 'INDIVIDUAL', email: 'bob.later@example.com' },
    });
    expect(updated.status).toBe(200);

    expect((await get(platformA, path, t)).body).toEqual(old);
    expect((await get(platformA, path)).body.email).toBe('bob.later@example.com');
    expect((await get(platformA, path, '2020-01-01T00:00:00Z')).body).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    expect((await get(platformB, path, t)).body).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    expect(await accountsOf(platformB, customerAccounts(bob, 'USD'), t)).toEqual([]);
  }, 60_000);
});

describe('an agent', () => {
  it('sees only its customer’s accounts and its own quotes as of a time', async () => {
    const created = await api.call('POST', '/agents', {
      auth: platformA,
      body: {
        name: 'Auditor',
        customerId: alice.customerId,
        policy: {
          permissions: ['VIEW_TRANSACTIONS', 'CREATE_QUOTES'],
          defaultExecutionMode: 'AUTO',
          spendingLimits: { currency: 'USD', perTransactionLimit: 1, dailyLimit: 1, dailyTransactionLimit: 1, monthlyLimit: 1 },
        },
      },
    });
    expect(created.status).toBe(201);
    const redeemed = await api.call('POST', `/agents/device-codes/${created.body.deviceCode.code as string}/redeem`);
    const bearer = `Bearer ${redeemed.body.accessToken as string}`;
    const usd = pay.accountIn(alice, 'USD');
    const seen = balancesIn(await accountsOf(platformA, customerAccounts(alice, 'USD')));
    const t = await instant();
    await pay.fund(platformA, usd, 25);
    await eventually(
      async () => balancesIn(await accountsOf(platformA, customerAccounts(alice, 'USD'))),
      ([available]) => available === seen[0] + 25,
    );

    const mine = await accountsOf(bearer, '/agents/me/internal-accounts', t);
    expect(mine.map((account) => account.id)).toEqual([usd]);
    expect(balancesIn(mine)).toEqual(seen);
    expect(balancesIn(await accountsOf(bearer, '/agents/me/internal-accounts'))).toEqual([seen[0] + 25, seen[1] + 25]);

    const quoted = await api.call('POST', '/agents/me/quotes', {
      auth: bearer,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: usd },
        destination: { destinationType: 'ACCOUNT', accountId: await pay.euroAccount(platformA, alice.customerId) },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    });
    expect(quoted.status).toBe(201);
    const path = `/agents/me/quotes/${quoted.body.id as string}`;
    expect((await get(bearer, path, t)).body).toMatchObject({ status: 404, code: 'QUOTE_NOT_FOUND' });
    expect((await get(bearer, path, await instant())).body).toMatchObject({ id: quoted.body.id, status: 'PENDING' });
    expect((await get(platformA, '/agents/me/internal-accounts', t)).status).toBe(401);
  }, 60_000);
});

it('refuses a time that is no time with a 400 naming asOf, on every route that takes it', async () => {
  const paths = [
    `/quotes/Quote:00000000-0000-7000-8000-000000000000`,
    `/cards/Card:00000000-0000-7000-8000-000000000000`,
    `/customers/${alice.customerId}`,
    customerAccounts(alice, 'USD'),
    '/platform/internal-accounts',
  ];
  for (const path of paths) {
    const reply = await get(platformA, path, 'yesterday');
    expect([path, reply.status]).toEqual([path, 400]);
    expect(reply.body).toMatchObject({
      status: 400,
      code: expect.any(String),
      message: expect.stringContaining('asOf must be an RFC 3339 date-time'),
    });
  }
});
