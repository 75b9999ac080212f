// External accounts end to end through the gateway with every app running: every listed variant
// created, read, listed and deleted for a customer and for the platform; refusals that name the
// field; the default UMA deposit rule; the sandbox beneficiary-verification suffixes; tenancy.
import { createApi, type Credentials } from './support/api';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';

let stack: StackView;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
let production: Credentials;

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' };
const company = { beneficiaryType: 'BUSINESS', legalName: 'Acme GmbH' };

/** One valid accountInfo per listed variant; none of their identifiers ends in a verification suffix (102–107). */
const variants: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
  [
    'USD',
    'USD',
    {
      accountType: 'USD_ACCOUNT',
      accountNumber: '000123456789',
      routingNumber: '011000015',
      bankAccountType: 'CHECKING',
      bankName: 'Fed Bank',
      beneficiary: person,
    },
  ],
  [
    'EUR',
    'EUR',
    {
      accountType: 'EUR_ACCOUNT',
      iban: 'DE89370400440532013000',
      swiftCode: 'COBADEFFXXX',
      beneficiary: { ...person, countryOfResidence: 'DE' },
    },
  ],
  ['GBP', 'GBP', { accountType: 'GBP_ACCOUNT', sortCode: '404784', accountNumber: '70872490', beneficiary: company }],
  ['MXN', 'MXN', { accountType: 'MXN_ACCOUNT', clabeNumber: '032180000118359719', beneficiary: person }],
  [
    'BRL',
    'BRL',
    { accountType: 'BRL_ACCOUNT', pixKey: 'testuser.002@pix.com.br', pixKeyType: 'EMAIL', taxId: '12345678909', beneficiary: person },
  ],
  ['INR', 'INR', { accountType: 'INR_ACCOUNT', vpa: 'user@upi', beneficiary: person }],
  [
    'AED',
    'AED',
    {
      accountType: 'AED_ACCOUNT',
      iban: 'AE070331234567890123456',
      swiftCode: 'EBILAEAD',
      beneficiary: { ...person, address: { line1: '1 Sheikh Zayed Rd', postalCode: '00000', country: 'AE' } },
    },
  ],
  ['NGN', 'NGN', { accountType: 'NGN_ACCOUNT', accountNumber: '0123456789', bankName: 'Example Bank', beneficiary: person }],
  [
    'SWIFT',
    'GBP',
    {
      accountType: 'SWIFT_ACCOUNT',
      country: 'GB',
      swiftCode: 'NWBKGB2L',
      bankName: 'NatWest',
      iban: 'GB82WEST12345698765432',
      beneficiary: company,
    },
  ],
  ['SPARK', 'BTC', { accountType: 'SPARK_WALLET', address: 'spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu' }],
  ['LIGHTNING', 'BTC', { accountType: 'LIGHTNING', lightningAddress: 'ada@lightningwallet.com' }],
  ['ETHEREUM', 'USDC', { accountType: 'ETHEREUM_WALLET', address: '0xAbCDEF1234567890aBCdEf1234567890ABcDef12' }],
  ['POLYGON', 'USDC', { accountType: 'POLYGON_WALLET', address: '0x0000000000000000000000000000000000001010' }],
  ['BASE', 'USDC', { accountType: 'BASE_WALLET', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }],
  ['SOLANA', 'USDC', { accountType: 'SOLANA_WALLET', address: '4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg' }],
  ['TRON', 'USDC', { accountType: 'TRON_WALLET', address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL' }],
];

const usd = (accountNumber: string, beneficiary: Record<string, unknown> = person) => ({
  accountType: 'USD_ACCOUNT',
  accountNumber,
  routingNumber: '011000015',
  beneficiary,
});

let customerSeq = 0;
const newCustomer = async (auth: Credentials): Promise<string> => {
  customerSeq += 1;
  const created = await api.call('POST', '/customers', {
    auth,
    body: {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `ext-${customerSeq}`,
      region: 'US',
      fullName: 'Ada Lovelace',
      birthDate: '1990-01-15',
      nationality: 'US',
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
};

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'external-accounts');
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

describe('every listed variant', () => {
  it.each(variants)('creates, reads, lists and deletes a %s account for a customer', async (_name, currency, accountInfo) => {
    const customerId = await newCustomer(platformA);
    const created = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: { customerId, currency, accountInfo, platformAccountId: 'mine-1' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      customerId,
      currency,
      status: 'ACTIVE',
      platformAccountId: 'mine-1',
      defaultUmaDepositAccount: false,
    });
    expect(created.body.id).toMatch(/^ExternalAccount:[0-9a-f-]{36}$/);
    expect(created.body.accountInfo.accountType).toBe(accountInfo['accountType']);
    // Bank accounts name a beneficiary, which the sandbox rail verifies; wallets have none.
    if ('beneficiary' in accountInfo) expect(created.body.beneficiaryVerificationStatus).toBe('MATCHED');
    else expect(created.body).not.toHaveProperty('beneficiaryVerificationStatus');
    const id = created.body.id as string;

    expect((await api.call('GET', `/customers/external-accounts/${id}`, { auth: platformA })).body).toEqual(created.body);
    const listed = await api.call('GET', `/customers/external-accounts?customerId=${encodeURIComponent(customerId)}&currency=${currency}`, {
      auth: platformA,
    });
    expect(listed.body).toMatchObject({ hasMore: false, totalCount: 1, data: [created.body] });

    const deleted = await api.call('DELETE', `/customers/external-accounts/${id}`, { auth: platformA });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api.call('GET', `/customers/external-accounts/${id}`, { auth: platformA })).body).toMatchObject({
      status: 404,
      code: 'REFERENCE_NOT_FOUND',
    });
    expect((await api.call('DELETE', `/customers/external-accounts/${id}`, { auth: platformA })).status).toBe(404);
    expect(
      (await api.call('GET', `/customers/external-accounts?customerId=${encodeURIComponent(customerId)}`, { auth: platformA })).body.data,
    ).toEqual([]);
  });

  it.each(variants)(
    'creates, reads, lists and deletes a %s account for the platform, without customerId',
    async (_name, currency, accountInfo) => {
      const created = await api.call('POST', '/platform/external-accounts', { auth: platformB, body: { currency, accountInfo } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ currency, status: 'ACTIVE' });
      expect(created.body).not.toHaveProperty('customerId');
      const id = created.body.id as string;
      expect((await api.call('GET', `/platform/external-accounts/${id}`, { auth: platformB })).body).toEqual(created.body);
      const listed = await api.call('GET', `/platform/external-accounts?currency=${currency}&limit=100`, { auth: platformB });
      expect(listed.body.data.map((account: { id: string }) => account.id)).toContain(id);
      expect((await api.call('DELETE', `/platform/external-accounts/${id}`, { auth: platformB })).status).toBe(204);
      expect((await api.call('GET', `/platform/external-accounts/${id}`, { auth: platformB })).status).toBe(404);
    },
  );
});

describe('refusals', () => {
  let customerId: string;
  beforeAll(async () => {
    customerId = await newCustomer(platformA);
  });
  const create = (body: Record<string, unknown>) =>
    api.call('POST', '/customers/external-accounts', { auth: platformA, body: { customerId, currency: 'USD', ...body } });

  it.each([
    [
      'a bad IBAN checksum',
      'EUR',
      { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013001', beneficiary: { ...person, countryOfResidence: 'DE' } },
      'INVALID_BANK_ACCOUNT',
      'accountInfo.iban',
    ],
    [
      'an 8-digit routing number',
      'USD',
      { ...usd('000123456789'), routingNumber: '01100001' },
      'INVALID_INPUT',
      'accountInfo.routingNumber',
    ],
    ['an unknown accountType', 'USD', { accountType: 'MOON_ACCOUNT', accountNumber: '1' }, 'INVALID_INPUT', 'accountInfo.accountType'],
    [
      'a missing beneficiary',
      'USD',
      { accountType: 'USD_ACCOUNT', accountNumber: '000123456789', routingNumber: '011000015' },
      'INVALID_INPUT',
      'accountInfo.beneficiary',
    ],
    [
      'a CLABE with a wrong check digit',
      'MXN',
      { accountType: 'MXN_ACCOUNT', clabeNumber: '032180000118359710', beneficiary: person },
      'INVALID_BANK_ACCOUNT',
      'accountInfo.clabeNumber',
    ],
  ])('refuses %s with a 400 naming the field', async (_name, currency, accountInfo, code, field) => {
    const refused = await create({ currency, accountInfo });
    expect(refused.body).toMatchObject({ status: 400, code, details: { field } });
    expect(refused.body.message).toContain(field);
  });

  it('refuses a body without currency or accountInfo, naming each', async () => {
    const refused = await api.call('POST', '/customers/external-accounts', { auth: platformA, body: { customerId } });
    expect(refused.status).toBe(400);
    const fields = (refused.body.details.errors as { field: string }[]).map((error) => error.field);
    expect(fields).toEqual(expect.arrayContaining(['currency', 'accountInfo']));
  });

  it('refuses customerId on the platform route and a default UMA deposit account for the platform', async () => {
    const withCustomer = await api.call('POST', '/platform/external-accounts', {
      auth: platformA,
      body: { customerId, currency: 'USD', accountInfo: usd('000123456700') },
    });
    expect(withCustomer.status).toBe(400);
    expect(withCustomer.body.message).toContain('customerId');
    const platformDefault = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: { currency: 'USD', defaultUmaDepositAccount: true, accountInfo: usd('000123456701') },
    });
    expect(platformDefault.body).toMatchObject({ status: 400, details: { field: 'defaultUmaDepositAccount' } });
  });

  it('refuses the same account for the same customer twice with 409, and accepts it again once deleted', async () => {
    const first = await create({ accountInfo: usd('000555666777') });
    expect(first.status).toBe(201);
    expect((await create({ accountInfo: usd('000555666777') })).body).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect((await api.call('DELETE', `/customers/external-accounts/${first.body.id}`, { auth: platformA })).status).toBe(204);
    expect((await create({ accountInfo: usd('000555666777') })).status).toBe(201);
  });

  it('refuses an unknown customer with a 400 naming customerId', async () => {
    const refused = await create({ customerId: 'Customer:01900000-0000-7000-8000-000000000000', accountInfo: usd('000123456702') });
    expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'customerId' } });
  });
});

describe('default UMA deposit account', () => {
  it('keeps at most one per customer: a new default replaces the old, deleting it leaves none', async () => {
    const customerId = await newCustomer(platformA);
    const create = (accountNumber: string, defaultUmaDepositAccount: boolean) =>
      api.call('POST', '/customers/external-accounts', {
        auth: platformA,
        body: { customerId, currency: 'USD', defaultUmaDepositAccount, accountInfo: usd(accountNumber) },
      });
    const first = await create('000222000001', true);
    expect(first.body.defaultUmaDepositAccount).toBe(true);
    const plain = await create('000222000002', false);
    expect(plain.body.defaultUmaDepositAccount).toBe(false);
    const second = await create('000222000003', true);
    expect(second.body.defaultUmaDepositAccount).toBe(true);
    // The old default's flag is cleared, visible on GET right away.
    expect(
      (await api.call('GET', `/customers/external-accounts/${first.body.id}`, { auth: platformA })).body.defaultUmaDepositAccount,
    ).toBe(false);

    const defaults = async () =>
      (await api.call('GET', `/customers/external-accounts?customerId=${encodeURIComponent(customerId)}`, { auth: platformA })).body.data
        .filter((account: { defaultUmaDepositAccount: boolean }) => account.defaultUmaDepositAccount)
        .map((account: { id: string }) => account.id);
    expect(await defaults()).toEqual([second.body.id]);
    expect((await api.call('DELETE', `/customers/external-accounts/${second.body.id}`, { auth: platformA })).status).toBe(204);
    expect(await defaults()).toEqual([]);

    // Two concurrent defaults end with exactly one.
    const racing = await Promise.all([create('000222000004', true), create('000222000005', true)]);
    racing.forEach((reply) => expect(reply.status).toBe(201));
    expect(await defaults()).toHaveLength(1);
  });
});

describe('sandbox beneficiary verification', () => {
  let customerId: string;
  beforeAll(async () => {
    customerId = await newCustomer(platformA);
  });

  it.each([
    ['102', 'NOT_MATCHED', 'UNDER_REVIEW', undefined],
    ['103', 'PARTIAL_MATCH', 'ACTIVE', { fullName: 'A. Lovelace' }],
    ['104', 'PENDING', 'PENDING', undefined],
    ['106', 'UNSUPPORTED', 'ACTIVE', undefined],
    ['107', 'CHECKED_BY_RECEIVING_FI', 'ACTIVE', undefined],
    ['101', 'MATCHED', 'ACTIVE', { fullName: 'Ada Lovelace' }],
  ])('answers an account number ending %s with %s', async (suffix, verification, status, verifiedData) => {
    const created = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: { customerId, currency: 'USD', accountInfo: usd(`000777888${suffix}`) },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ beneficiaryVerificationStatus: verification, status });
    if (verifiedData) expect(created.body.beneficiaryVerifiedData).toEqual(verifiedData);
    else expect(created.body).not.toHaveProperty('beneficiaryVerifiedData');
  });

  it('refuses an account number ending 105 as an invalid bank account, recording nothing', async () => {
    const refused = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: { customerId, currency: 'USD', accountInfo: usd('000777888105') },
    });
    expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_BANK_ACCOUNT', details: { field: 'accountInfo' } });
    const listed = await api.call('GET', `/customers/external-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`, {
      auth: platformA,
    });
    expect(listed.body.data.map((account: { accountInfo: { accountNumber: string } }) => account.accountInfo.accountNumber)).not.toContain(
      '000777888105',
    );
  });

  it('leaves a production platform’s account PENDING with no simulated verification', async () => {
    const created = await api.call('POST', '/platform/external-accounts', {
      auth: production,
      body: { currency: 'USD', accountInfo: usd('000777888102') },
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('PENDING');
    expect(created.body).not.toHaveProperty('beneficiaryVerificationStatus');
  });
});

describe('routing and tenancy', () => {
  it('serves /customers/external-accounts, not the customer called "external-accounts"', async () => {
    const listed = await api.call('GET', '/customers/external-accounts', { auth: platformB });
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveProperty('hasMore');
  });

  it('never shows another platform’s accounts and refuses its customers', async () => {
    const customerOfA = await newCustomer(platformA);
    const customerAccount = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: { customerId: customerOfA, currency: 'USD', accountInfo: usd('000333444555') },
    });
    const platformAccount = await api.call('POST', '/platform/external-accounts', {
      auth: platformA,
      body: { currency: 'USD', accountInfo: usd('000333444556') },
    });
    for (const [path, id] of [
      ['customers', customerAccount.body.id],
      ['platform', platformAccount.body.id],
    ]) {
      expect((await api.call('GET', `/${path}/external-accounts/${id}`, { auth: platformB })).body).toMatchObject({
        status: 404,
        code: 'REFERENCE_NOT_FOUND',
      });
      expect((await api.call('DELETE', `/${path}/external-accounts/${id}`, { auth: platformB })).status).toBe(404);
      const listed = await api.call('GET', `/${path}/external-accounts?limit=100`, { auth: platformB });
      expect(listed.body.data.map((account: { id: string }) => account.id)).not.toContain(id);
    }
    expect(
      (await api.call('GET', `/customers/external-accounts?customerId=${encodeURIComponent(customerOfA)}`, { auth: platformB })).body.data,
    ).toEqual([]);
    const foreignCustomer = await api.call('POST', '/customers/external-accounts', {
      auth: platformB,
      body: { customerId: customerOfA, currency: 'USD', accountInfo: usd('000333444557') },
    });
    expect(foreignCustomer.body).toMatchObject({ status: 400, details: { field: 'customerId' } });
    // Still there for their owner.
    expect((await api.call('GET', `/customers/external-accounts/${customerAccount.body.id}`, { auth: platformA })).status).toBe(200);
  });

  it('answers 404 for an id that is not an external account id', async () => {
    expect(
      (await api.call('GET', '/customers/external-accounts/Customer:01900000-0000-7000-8000-000000000000', { auth: platformA })).body,
    ).toMatchObject({
      status: 404,
      code: 'REFERENCE_NOT_FOUND',
    });
  });
});
