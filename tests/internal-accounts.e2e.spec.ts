// Internal accounts end to end with every app running: accounts opened for new customers and for
// the platform (and for a currency the configuration adds), sandbox funding to the exact minor
// unit with the reference's bounds, production refused, filters and paging, PATCH, tenancy, and
// the ledger's books balancing at the end.
import { assertLedgerConserved, eventually } from '@corridor/testing';
import { createApi, type Credentials } from './support/api';
import { type Stack, startStack } from './support/stack';

type Account = {
  id: string;
  customerId?: string;
  type: string;
  status: string;
  balance: { amount: number; currency: { code: string } };
  totalBalance: { amount: number; currency: { code: string } };
  fundingPaymentInstructions: { isPlatformAccount?: boolean; accountOrWalletInfo: Record<string, unknown> }[];
};

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
let production: Credentials;

const customerAccounts = async (auth: Credentials, query: string): Promise<Account[]> => {
  const reply = await api.call('GET', `/customers/internal-accounts?${query}`, { auth });
  expect(reply.status).toBe(200);
  return reply.body.data as Account[];
};

const platformAccounts = async (auth: Credentials, query = ''): Promise<Account[]> => {
  const reply = await api.call('GET', `/platform/internal-accounts${query ? `?${query}` : ''}`, { auth });
  expect(reply.status).toBe(200);
  return reply.body.data as Account[];
};

let customerCount = 0;
/** Creates a customer and waits until each of its currencies has an internal account. */
const newCustomer = async (auth: Credentials, currencies: string[]): Promise<{ customerId: string; accounts: Account[] }> => {
  customerCount += 1;
  const created = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: `Ines ${customerCount}`, currencies },
  });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  const accounts = await eventually(
    () => customerAccounts(auth, `customerId=${encodeURIComponent(customerId)}`),
    (list) => list.length >= currencies.length,
  );
  return { customerId, accounts };
};

const fund = (auth: Credentials, accountId: string, body: unknown) =>
  api.call('POST', `/sandbox/internal-accounts/${accountId}/fund`, { auth, body });
const fieldsOf = (body: { details?: { errors?: { field: string }[]; field?: string } }): string[] =>
  body.details?.errors?.map((error) => error.field) ?? (body.details?.field ? [body.details.field] : []);

beforeAll(async () => {
  stack = await startStack();
  api = createApi(stack, 'internal-accounts');
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

describe('accounts opened automatically', () => {
  it('gives a new customer one account per currency, empty, with funding instructions to pay into it', async () => {
    const { customerId, accounts } = await newCustomer(platformA, ['USD', 'EUR']);
    expect(accounts.map((account) => [account.balance.currency.code, account.type, account.status, account.customerId]).sort()).toEqual([
      ['EUR', 'INTERNAL_FIAT', 'ACTIVE', customerId],
      ['USD', 'INTERNAL_FIAT', 'ACTIVE', customerId],
    ]);
    expect(accounts.every((account) => account.balance.amount === 0 && account.totalBalance.amount === 0)).toBe(true);
    const usd = accounts.find((account) => account.balance.currency.code === 'USD');
    expect(usd?.fundingPaymentInstructions).toEqual([
      expect.objectContaining({
        isPlatformAccount: false,
        accountOrWalletInfo: expect.objectContaining({ accountType: 'USD_ACCOUNT', reference: expect.stringMatching(/^CRD[0-9A-F]{16}$/) }),
      }),
    ]);
    // The same account shows the same instructions on every read.
    expect(
      (await customerAccounts(platformA, `customerId=${encodeURIComponent(customerId)}&currency=USD`))[0]?.fundingPaymentInstructions,
    ).toEqual(usd?.fundingPaymentInstructions);
  });

  it('gives the platform its own account per supported currency, without a customerId', async () => {
    const accounts = await eventually(
      () => platformAccounts(platformA),
      (list) => list.length >= 4,
    );
    expect(accounts.map((account) => account.balance.currency.code).sort()).toEqual(['EUR', 'GBP', 'MXN', 'USD']);
    expect(
      accounts.every((account) => !('customerId' in account) && account.fundingPaymentInstructions[0]?.isPlatformAccount === true),
    ).toBe(true);
    expect((await platformAccounts(platformA, 'currency=MXN')).map((account) => account.balance.currency.code)).toEqual(['MXN']);
    expect(await platformAccounts(platformA, 'type=INTERNAL_CRYPTO')).toEqual([]);
  });

  it('opens a platform account for a currency the configuration adds', async () => {
    const current = (await api.call('GET', '/config', { auth: platformB })).body;
    const btc = {
      currencyCode: 'BTC',
      minAmount: 1000,
      maxAmount: 100_000_000,
      requiredCounterpartyFields: [],
      enabledTransactionTypes: ['OUTGOING', 'INCOMING'],
    };
    expect(
      (await api.call('PATCH', '/config', { auth: platformB, body: { supportedCurrencies: [...current.supportedCurrencies, btc] } }))
        .status,
    ).toBe(200);
    const crypto = await eventually(
      () => platformAccounts(platformB, 'type=INTERNAL_CRYPTO'),
      (list) => list.length >= 1,
    );
    expect(crypto.map((account) => [account.balance.currency.code, account.balance.amount])).toEqual([['BTC', 0]]);
    expect(crypto[0]?.fundingPaymentInstructions[0]?.accountOrWalletInfo).toMatchObject({ accountType: 'SPARK_WALLET', assetType: 'BTC' });
  });
});

describe('sandbox funding', () => {
  it('raises balance and totalBalance by exactly the amount, up to the reference maximum', async () => {
    const { accounts } = await newCustomer(platformA, ['USD']);
    const account = accounts[0] as Account;
    const first = await fund(platformA, account.id, { amount: 12_345 });
    expect(first.status).toBe(200);
    expect([first.body.id, first.body.balance.amount, first.body.totalBalance.amount]).toEqual([account.id, 12_345, 12_345]);
    const second = await fund(platformA, account.id, { amount: 100_000_000_000 });
    expect([second.body.balance.amount, second.body.totalBalance.amount]).toEqual([100_000_012_345, 100_000_012_345]);
    // Read-your-writes: the list right after the reply shows the new balance.
    expect((await customerAccounts(platformA, `customerId=${encodeURIComponent(account.customerId ?? '')}`))[0]?.balance.amount).toBe(
      100_000_012_345,
    );
  });

  it('funds the platform’s own account too', async () => {
    const [usd] = await platformAccounts(platformA, 'currency=USD');
    const funded = await fund(platformA, usd?.id ?? '', { amount: 500 });
    expect([funded.status, funded.body.balance.amount - (usd?.balance.amount ?? 0)]).toEqual([200, 500]);
  });

  it.each([
    ['zero', { amount: 0 }],
    ['negative', { amount: -5 }],
    ['a fraction', { amount: 1.5 }],
    ['a string', { amount: '100' }],
    ['above the maximum', { amount: 100_000_000_001 }],
    ['missing', {}],
  ])('refuses an amount that is %s with a 400 naming amount, and moves nothing', async (_case, body) => {
    const { accounts } = await newCustomer(platformA, ['USD']);
    const account = accounts[0] as Account;
    const refused = await fund(platformA, account.id, body);
    expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(fieldsOf(refused.body)).toContain('amount');
    expect((await customerAccounts(platformA, `customerId=${encodeURIComponent(account.customerId ?? '')}`))[0]?.balance.amount).toBe(0);
  });

  it('refuses a production platform with 403, and a token without TRANSACT with 403', async () => {
    const [own] = await eventually(
      () => platformAccounts(production),
      (list) => list.length >= 1,
    );
    const refused = await fund(production, own?.id ?? '', { amount: 100 });
    expect(refused.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(refused.body.message).toMatch(/sandbox/);
    expect((await platformAccounts(production)).find((account) => account.id === own?.id)?.balance.amount).toBe(0);

    const viewer = await api.call('POST', '/tokens', { auth: platformA, body: { name: 'viewer', permissions: ['VIEW'] } });
    const [usd] = await platformAccounts(platformA, 'currency=USD');
    expect((await fund(viewer.body as Credentials, usd?.id ?? '', { amount: 1 })).body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });

  it('answers 404 for an account id that is malformed or unknown', async () => {
    expect((await fund(platformA, 'not-an-id', { amount: 1 })).body).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
    expect((await fund(platformA, 'InternalAccount:0196f1a0-0000-7000-8000-000000000001', { amount: 1 })).body).toMatchObject({
      status: 404,
      code: 'REFERENCE_NOT_FOUND',
    });
  });
});

describe('listing', () => {
  it('filters by customer, currency and type, and pages without gaps or repeats', async () => {
    const customers = await Promise.all([
      newCustomer(platformB, ['USD', 'GBP']),
      newCustomer(platformB, ['USD']),
      newCustomer(platformB, ['USD']),
    ]);
    const usdIds = customers.flatMap(({ accounts }) =>
      accounts.filter((account) => account.balance.currency.code === 'USD').map((account) => account.id),
    );
    expect(usdIds).toHaveLength(3);

    const gbp = await customerAccounts(platformB, 'currency=GBP');
    expect(gbp.map((account) => account.customerId)).toEqual([customers[0]?.customerId]);
    expect(await customerAccounts(platformB, 'type=EMBEDDED_WALLET')).toEqual([]);

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const reply = await api.call(
        'GET',
        `/customers/internal-accounts?currency=USD&type=INTERNAL_FIAT&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { auth: platformB },
      );
      expect(reply.body.data.length).toBeLessThanOrEqual(2);
      expect(reply.body.totalCount).toBe(3);
      seen.push(...reply.body.data.map((account: Account) => account.id));
      if (!reply.body.hasMore) break;
      cursor = reply.body.nextCursor;
    }
    expect(seen.sort()).toEqual([...usdIds].sort());
    // The platform's own accounts are listed only under /platform/internal-accounts.
    const platformIds = (await platformAccounts(platformB)).map((account) => account.id);
    expect(seen.some((id) => platformIds.includes(id))).toBe(false);
  });

  it('refuses filters and paging parameters the reference does not allow, naming them', async () => {
    const cases: [string, string][] = [
      ['type=SAVINGS', 'type'],
      ['currency=usd', 'currency'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=garbage', 'cursor'],
    ];
    for (const [query, field] of cases) {
      const reply = await api.call('GET', `/customers/internal-accounts?${query}`, { auth: platformA });
      expect([reply.status, fieldsOf(reply.body)]).toEqual([400, [field]]);
    }
    expect(fieldsOf((await api.call('GET', '/platform/internal-accounts?type=SAVINGS', { auth: platformA })).body)).toEqual(['type']);
  });
});

describe('PATCH /internal-accounts/{id}', () => {
  it('refuses privateEnabled on an account that is not an Embedded Wallet, an empty update and a non-boolean, each naming privateEnabled', async () => {
    const { accounts } = await newCustomer(platformA, ['USD']);
    const id = (accounts[0] as Account).id;
    for (const body of [{ privateEnabled: true }, {}, { privateEnabled: 'yes' }]) {
      const reply = await api.call('PATCH', `/internal-accounts/${id}`, { auth: platformA, body });
      expect(reply.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
      expect(fieldsOf(reply.body)).toEqual(['privateEnabled']);
    }
    const unknown = await api.call('PATCH', `/internal-accounts/${id}`, { auth: platformA, body: { status: 'FROZEN' } });
    expect([unknown.status, fieldsOf(unknown.body)]).toEqual([400, ['status']]);
    expect((await api.call('PATCH', '/internal-accounts/nope', { auth: platformA, body: { privateEnabled: true } })).body).toMatchObject({
      status: 404,
      code: 'REFERENCE_NOT_FOUND',
    });
    // Nothing changed.
    expect((await customerAccounts(platformA, `customerId=${encodeURIComponent(accounts[0]?.customerId ?? '')}`))[0]).toEqual(accounts[0]);
  });
});

describe('tenancy', () => {
  it('answers 404 for another platform’s account and never lists it', async () => {
    const { customerId, accounts } = await newCustomer(platformA, ['USD']);
    const account = accounts[0] as Account;
    expect((await fund(platformA, account.id, { amount: 70 })).status).toBe(200);

    expect((await fund(platformB, account.id, { amount: 1_000 })).body).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
    expect(
      (await api.call('PATCH', `/internal-accounts/${account.id}`, { auth: platformB, body: { privateEnabled: true } })).body,
    ).toMatchObject({
      status: 404,
      code: 'REFERENCE_NOT_FOUND',
    });
    expect(await customerAccounts(platformB, `customerId=${encodeURIComponent(customerId)}`)).toEqual([]);
    const listedByB = (await customerAccounts(platformB, 'limit=100')).map((listed) => listed.id);
    expect(listedByB).not.toContain(account.id);
    const [platformAUsd] = await platformAccounts(platformA, 'currency=USD');
    expect((await platformAccounts(platformB)).map((listed) => listed.id)).not.toContain(platformAUsd?.id);
    expect((await fund(platformB, platformAUsd?.id ?? '', { amount: 1 })).body).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
    // The stranger's attempts moved nothing.
    expect((await customerAccounts(platformA, `customerId=${encodeURIComponent(customerId)}`))[0]?.balance.amount).toBe(70);
  });
});

describe('the ledger after all of the above', () => {
  it('balances: per currency the postings sum to zero and every balance is the sum of its postings', async () => {
    const summary = await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
    expect(summary.postings).toBeGreaterThan(0);
    expect(summary.accounts).toBeGreaterThan(10);
  });
});
