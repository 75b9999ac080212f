// UMA end to end with every app running: receiver lookups of every sandbox UMA address and of a
// directory provider and an external account, a quote held to the lookupId it cites, invitations
// through PENDING → CLAIMED (with INVITATION.CLAIMED to the creating platform), CANCELLED and
// EXPIRED, the UMA provider directory with filters and paging, discoveries, the crypto withdrawal
// fee estimate, bad input on every route (4xx with the error body, never 5xx), and tenancy.
import { createApi, type Credentials } from './support/api';
import { eventually } from '@corridor/testing';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';
import { type Receiver, startReceiver } from './support/webhook-receiver';

type Account = { id: string; balance: { currency: { code: string } } };
type Named = { name: string; domain: string; allowListStatus: boolean; currency: { code: string } };
type Institution = { bankName: string; country: string; currency: string };

let stack: StackView;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
let receiver: Receiver;

type Customer = { id: string; umaAddress: string; accounts: Account[] };
let customerCount = 0;
const newCustomer = async (auth: Credentials, currencies: string[]): Promise<Customer> => {
  customerCount += 1;
  const created = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: `Uma Person ${customerCount}`, currencies },
  });
  expect([created.status, created.body.message]).toEqual([201, undefined]);
  const id = created.body.id as string;
  const accounts = await eventually(
    async () =>
      (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(id)}`, { auth })).body.data as Account[],
    (list) => list.length >= currencies.length,
  );
  return { id, umaAddress: created.body.umaAddress as string, accounts };
};
const accountIn = (customer: Customer, currency: string): string =>
  customer.accounts.find((account) => account.balance.currency.code === currency)?.id ?? '';

const euroAccount = async (auth: Credentials, customerId: string, serial: number): Promise<string> => {
  const bban = `370400440532${String(serial).padStart(6, '0')}`;
  const numeric = [...`${bban}DE00`].map((character) => parseInt(character, 36).toString()).join('');
  const check = String(98 - Number(BigInt(numeric) % 97n)).padStart(2, '0');
  const created = await api.call('POST', '/customers/external-accounts', {
    auth,
    body: {
      customerId,
      currency: 'EUR',
      accountInfo: {
        accountType: 'EUR_ACCOUNT',
        iban: `DE${check}${bban}`,
        swiftCode: 'COBADEFFXXX',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Eva Empfänger', countryOfResidence: 'DE' },
      },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
};

const lookupUma = (address: string, query: string, auth: Credentials = platformA) =>
  api.call('GET', `/receiver/uma/${encodeURIComponent(address)}${query}`, { auth });
const fieldsOf = (body: { details?: { errors?: { field: string }[]; field?: string } }): string[] =>
  body.details?.errors?.map((error) => error.field) ?? (body.details?.field ? [body.details.field] : []);

let sender: Customer;
let strangerCustomer: Customer;

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'uma');
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
  const current = (await api.call('GET', '/config', { auth: platformA })).body;
  const crypto = ['USDC', 'BTC'].map((currencyCode) => ({
    currencyCode,
    minAmount: 1000,
    maxAmount: 100_000_000,
    requiredCounterpartyFields: [],
    enabledTransactionTypes: ['OUTGOING', 'INCOMING'],
  }));
  const configured = await api.call('PATCH', '/config', {
    auth: platformA,
    body: { webhookEndpoint: receiver.url, supportedCurrencies: [...current.supportedCurrencies, ...crypto] },
  });
  expect(configured.status).toBe(200);
  sender = await newCustomer(platformA, ['USD', 'USDC', 'BTC']);
  strangerCustomer = await newCustomer(platformB, ['USD']);
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await receiver?.close();
  await stack?.close();
});

describe('GET /receiver/uma/{receiverUmaAddress}', () => {
  it.each([
    ['$success.usd@sandbox.uma.money', 'USD', 1],
    ['$success.eur@sandbox.uma.money', 'EUR', 1.08],
    ['$success.mxn@sandbox.uma.money', 'MXN', 0.0585],
    ['$pending.long.usd@sandbox.uma.money', 'USD', 1],
    ['$fail.compliance.usd@sandbox.uma.money', 'USD', 1],
  ])('looks up the sandbox receiver %s: %s with an estimate and limits, and a lookupId', async (address, currency, rate) => {
    const reply = await lookupUma(address, `?customerId=${encodeURIComponent(sender.id)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      receiverUmaAddress: address,
      lookupId: expect.stringMatching(/^Lookup:/),
      requiredPayerDataFields: [{ name: 'FULL_NAME', mandatory: true }],
    });
    expect(reply.body.supportedCurrencies).toEqual([
      {
        currency: expect.objectContaining({ code: currency }),
        estimatedExchangeRate: rate,
        min: expect.any(Number),
        max: expect.any(Number),
      },
    ]);
    const [preference] = reply.body.supportedCurrencies;
    expect(preference.min).toBeLessThan(preference.max);
  });

  it('looks a receiver up without naming the sender (both are optional): the same answer, every field a payer must give', async () => {
    const named = await lookupUma('$success.eur@sandbox.uma.money', `?customerId=${encodeURIComponent(sender.id)}`);
    const anonymous = await lookupUma('$success.eur@sandbox.uma.money', '');
    expect(anonymous.status).toBe(200);
    const { lookupId: _namedId, ...namedAnswer } = named.body;
    const { lookupId, ...anonymousAnswer } = anonymous.body;
    expect(lookupId).toMatch(/^Lookup:/);
    expect(anonymousAnswer).toEqual(namedAnswer);
    expect(anonymous.body.requiredPayerDataFields).toEqual(expect.arrayContaining([{ name: 'FULL_NAME', mandatory: true }]));
  });

  it('answers 404 UMA_NOT_FOUND for $non.existent.usd and for a domain no provider serves', async () => {
    for (const address of ['$non.existent.usd@sandbox.uma.money', '$nobody@unknown-vasp.example']) {
      const reply = await lookupUma(address, '?senderUmaAddress=%24alice%40acme.example');
      expect([reply.status, reply.body.code]).toEqual([404, 'UMA_NOT_FOUND']);
    }
  });

  it('takes the address raw or percent-encoded, and looks up a directory provider in its currencies', async () => {
    const raw = await api.call('GET', '/receiver/uma/$maria@bayani.example?senderUmaAddress=$alice@acme.example', { auth: platformA });
    expect(raw.status).toBe(200);
    expect(raw.body.supportedCurrencies.map((preference: Named) => preference.currency.code)).toEqual(['PHP', 'USD']);
    expect(raw.body.requiredPayerDataFields).toContainEqual({ name: 'FULL_NAME', mandatory: true });
    const encoded = await lookupUma('$maria@bayani.example', '?senderUmaAddress=%24alice%40acme.example');
    expect([encoded.status, encoded.body.receiverUmaAddress]).toEqual([200, '$maria@bayani.example']);
    expect(encoded.body.lookupId).not.toBe(raw.body.lookupId);
  });

  it.each([
    ['no $', 'alice@example.com', '?customerId=x', 'receiverUmaAddress'],
    ['no domain', '$alice', '?senderUmaAddress=%24a%40b.example', 'receiverUmaAddress'],
    ['a one-label domain', '$alice@localhost', '?senderUmaAddress=%24a%40b.example', 'receiverUmaAddress'],
    ['a space', '$al ice@bayani.example', '?senderUmaAddress=%24a%40b.example', 'receiverUmaAddress'],
    ['300 characters', `$${'a'.repeat(290)}@b.example`, '?senderUmaAddress=%24a%40b.example', 'receiverUmaAddress'],
    ['a malformed sender', '$success.usd@sandbox.uma.money', '?senderUmaAddress=alice', 'senderUmaAddress'],
  ])('refuses an address with %s: 400 INVALID_UMA_ADDRESS naming the field', async (_case, address, query, field) => {
    const reply = await lookupUma(address, query);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('INVALID_UMA_ADDRESS');
    expect(fieldsOf(reply.body)).toContain(field);
  });

  it('refuses a lookup naming an unknown customer, another platform’s customer, or an unknown query member', async () => {
    for (const customerId of ['Customer:nope', strangerCustomer.id]) {
      const reply = await lookupUma('$success.usd@sandbox.uma.money', `?customerId=${encodeURIComponent(customerId)}`);
      expect([reply.status, reply.body.code, fieldsOf(reply.body)]).toEqual([400, 'INVALID_INPUT', ['customerId']]);
    }
    const unknown = await lookupUma('$success.usd@sandbox.uma.money', `?customerId=${encodeURIComponent(sender.id)}&amount=5`);
    expect(unknown.status).toBe(400);
  });

  it('answers malformed percent-encoding in the path with 400 and the error body, not 5xx', async () => {
    const reply = await api.call('GET', '/receiver/uma/%24alice%E0%A4%A@bayani.example?senderUmaAddress=%24a%40b.example', {
      auth: platformA,
    });
    expect(reply.body).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      message: expect.stringContaining('percent-encoding'),
      details: { field: 'path' },
    });
    const huge = await api.call('GET', `/receiver/uma/%24${'a'.repeat(1100)}%40bayani.example?senderUmaAddress=%24a%40b.example`, {
      auth: platformA,
    });
    expect(huge.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'path' } });
  });
});

describe('GET /receiver/external-account/{accountId} and quotes citing a lookupId', () => {
  let euros: string;
  let mxnAccount: string | undefined;
  const newMxnSender = async (): Promise<string> => {
    mxnAccount ??= accountIn(await newCustomer(platformA, ['MXN']), 'MXN');
    return mxnAccount;
  };

  beforeAll(async () => {
    euros = await euroAccount(platformA, sender.id, 1);
  });

  const quote = (auth: Credentials, body: Record<string, unknown>) =>
    api.call('POST', '/quotes', {
      auth,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD') },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 10_000,
        ...body,
      },
    });

  it('looks up an external account: its currency with the estimate from USD and the limits', async () => {
    const reply = await api.call(
      'GET',
      `/receiver/external-account/${encodeURIComponent(euros)}?customerId=${encodeURIComponent(sender.id)}`,
      { auth: platformA },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      accountId: euros,
      lookupId: expect.stringMatching(/^Lookup:/),
      supportedCurrencies: [{ currency: { code: 'EUR' }, estimatedExchangeRate: 1.08, min: 100, max: 1_000_000_000 }],
    });
    const quoted = await quote(platformA, { destination: { destinationType: 'ACCOUNT', accountId: euros }, lookupId: reply.body.lookupId });
    expect([quoted.status, quoted.body.receivingCurrency?.code]).toEqual([201, 'EUR']);
  });

  it('looks an external account up without naming the sender, and a quote may cite that lookupId', async () => {
    const reply = await api.call('GET', `/receiver/external-account/${encodeURIComponent(euros)}`, { auth: platformA });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      accountId: euros,
      lookupId: expect.stringMatching(/^Lookup:/),
      supportedCurrencies: [{ currency: { code: 'EUR' }, estimatedExchangeRate: 1.08 }],
    });
    const quoted = await quote(platformA, { destination: { destinationType: 'ACCOUNT', accountId: euros }, lookupId: reply.body.lookupId });
    expect([quoted.status, quoted.body.receivingCurrency?.code]).toEqual([201, 'EUR']);
  });

  it('keeps external account lookups to their platform: another platform’s account or a malformed id is 404', async () => {
    const foreign = await api.call(
      'GET',
      `/receiver/external-account/${encodeURIComponent(euros)}?customerId=${encodeURIComponent(strangerCustomer.id)}`,
      { auth: platformB },
    );
    expect(foreign.status).toBe(404);
    const malformed = await api.call('GET', '/receiver/external-account/not-an-id?senderUmaAddress=%24a%40b.example', { auth: platformA });
    expect(malformed.status).toBe(404);
  });

  it('quotes a provider’s UMA address only through a lookup, in a currency it supports, with the payer data it requires', async () => {
    const destination = { destinationType: 'UMA_ADDRESS', umaAddress: '$maria@bayani.example', currency: 'PHP' };
    const without = await quote(platformA, { destination });
    expect([without.status, without.body.code]).toEqual([400, 'INVALID_INPUT']);
    expect(without.body.message).toContain('GET /receiver/uma/');

    const lookup = await lookupUma('$maria@bayani.example', `?customerId=${encodeURIComponent(sender.id)}`);
    const { lookupId } = lookup.body;
    // The lookup names every payer field a quote will ask for: the receiver's (the name) and the
    // PHP corridor's (birth date, nationality). The sender's profile has the name, not the rest.
    const mandatory = (lookup.body.requiredPayerDataFields as { name: string; mandatory: boolean }[])
      .filter((field) => field.mandatory)
      .map((field) => field.name);
    expect(mandatory.sort()).toEqual(['BIRTH_DATE', 'FULL_NAME', 'NATIONALITY']);
    const missingName = await quote(platformA, { destination, lookupId });
    expect([missingName.status, missingName.body.code, missingName.body.details?.missing]).toEqual([
      400,
      'MISSING_MANDATORY_USER_INFO',
      ['BIRTH_DATE', 'NATIONALITY'],
    ]);
    const wrongCurrency = await quote(platformA, {
      destination: { ...destination, currency: 'EUR' },
      lookupId,
      senderCustomerInfo: { FULL_NAME: 'Uma Person' },
    });
    expect([wrongCurrency.status, fieldsOf(wrongCurrency.body)]).toEqual([400, ['destination.currency']]);
    const otherAddress = await quote(platformA, {
      destination: { ...destination, umaAddress: '$jose@bayani.example' },
      lookupId,
      senderCustomerInfo: { FULL_NAME: 'Uma Person' },
    });
    expect([otherAddress.status, fieldsOf(otherAddress.body)]).toEqual([400, ['lookupId']]);

    const quoted = await quote(platformA, {
      destination,
      lookupId,
      senderCustomerInfo: { FULL_NAME: 'Uma Person', BIRTH_DATE: '1990-04-01', NATIONALITY: 'PH' },
    });
    expect(quoted.status).toBe(201);
    expect([quoted.body.receivingCurrency.code, quoted.body.destination]).toEqual(['PHP', destination]);
  });

  it('holds the quote to the amounts the lookup accepts in the receiving currency', async () => {
    const lookup = await lookupUma('$success.mxn@sandbox.uma.money', `?customerId=${encodeURIComponent(sender.id)}`);
    const [{ min, max }] = lookup.body.supportedCurrencies;
    const destination = { destinationType: 'UMA_ADDRESS', umaAddress: '$success.mxn@sandbox.uma.money' };
    // 1 USD less fees is about 1 500 centavos, under the least MXN a payment delivers.
    const tooLittle = await quote(platformA, { destination, lookupId: lookup.body.lookupId, lockedCurrencyAmount: 100 });
    expect([tooLittle.status, tooLittle.body.code, tooLittle.body.details?.minReceivingAmount]).toEqual([400, 'AMOUNT_OUT_OF_RANGE', min]);
    const tooMuch = await quote(platformA, {
      destination,
      lookupId: lookup.body.lookupId,
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: max + 1,
    });
    expect([tooMuch.status, tooMuch.body.code]).toEqual([400, 'AMOUNT_OUT_OF_RANGE']);
    const atLeast = await quote(platformA, {
      destination,
      lookupId: lookup.body.lookupId,
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: min,
    });
    expect([atLeast.status, atLeast.body.totalReceivingAmount]).toEqual([201, min]);
  });

  it.each(['$success.usd@sandbox.uma.money', '$pending.long.usd@sandbox.uma.money', '$fail.compliance.usd@sandbox.uma.money'])(
    'quotes the looked-up sandbox address %s from MXN',
    async (umaAddress) => {
      const lookup = await lookupUma(umaAddress, `?customerId=${encodeURIComponent(sender.id)}`);
      const mxn = await newMxnSender();
      const quoted = await api.call('POST', '/quotes', {
        auth: platformA,
        body: {
          source: { sourceType: 'ACCOUNT', accountId: mxn },
          destination: { destinationType: 'UMA_ADDRESS', umaAddress },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 100_000,
          lookupId: lookup.body.lookupId,
        },
      });
      expect([quoted.status, quoted.body.status, quoted.body.receivingCurrency?.code]).toEqual([201, 'PENDING', 'USD']);
    },
  );

  it('keeps a lookupId to its platform: cited by another platform, it is an unknown lookup', async () => {
    const lookup = await lookupUma('$success.eur@sandbox.uma.money', `?customerId=${encodeURIComponent(sender.id)}`);
    const strangerUsd = accountIn(strangerCustomer, 'USD');
    const reply = await api.call('POST', '/quotes', {
      auth: platformB,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: strangerUsd },
        destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money' },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 10_000,
        lookupId: lookup.body.lookupId,
      },
    });
    expect([reply.status, reply.body.code, fieldsOf(reply.body)]).toEqual([400, 'INVALID_INPUT', ['lookupId']]);
    const own = await quote(platformA, {
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money' },
      lookupId: lookup.body.lookupId,
    });
    expect(own.status).toBe(201);
  });
});

describe('invitations', () => {
  const create = (body: Record<string, unknown>, auth: Credentials = platformA) => api.call('POST', '/invitations', { auth, body });

  it('goes PENDING → CLAIMED, claimed from another platform, and INVITATION.CLAIMED reaches the creating platform', async () => {
    const created = await create({ inviterUma: sender.umaAddress, firstName: 'Bob', amountToSend: 2_500 });
    expect(created.status).toBe(201);
    const { code } = created.body;
    expect(created.body).toMatchObject({
      inviterUma: sender.umaAddress,
      status: 'PENDING',
      firstName: 'Bob',
      amountToSend: { amount: 2_500, currency: { code: 'USD' } },
      url: `https://uma.me/i/${code}`,
    });
    expect(Date.parse(created.body.expiresAt)).toBeGreaterThan(Date.parse(created.body.createdAt));

    const seen = await api.call('GET', `/invitations/${code}`, { auth: platformB });
    expect([seen.status, seen.body]).toEqual([200, created.body]);

    const claimed = await api.call('POST', `/invitations/${code}/claim`, { auth: platformB, body: { inviteeUma: '$bob@other.example' } });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ code, status: 'CLAIMED', inviteeUma: '$bob@other.example', claimedAt: expect.any(String) });
    expect((await api.call('GET', `/invitations/${code}`, { auth: platformA })).body).toEqual(claimed.body);

    await receiver.waitFor(
      (all) => all.some((item) => item.body.type === 'INVITATION.CLAIMED' && item.body.data.code === code),
      'INVITATION.CLAIMED',
    );
    const webhook = receiver.received.find((item) => item.body.type === 'INVITATION.CLAIMED' && item.body.data.code === code);
    api.conformance.checkWebhook(webhook?.body);
    expect(webhook?.body.data).toEqual(claimed.body);

    const again = await api.call('POST', `/invitations/${code}/claim`, { auth: platformA, body: { inviteeUma: '$carol@other.example' } });
    expect([again.status, again.body.code]).toEqual([400, 'INVITATION_ALREADY_CLAIMED']);
    const cancelClaimed = await api.call('POST', `/invitations/${code}/cancel`, { auth: platformA });
    expect([cancelClaimed.status, cancelClaimed.body.code]).toEqual([400, 'INVITATION_ALREADY_CLAIMED']);
  });

  it('is cancelled only by the creating platform and only while PENDING; a cancelled one cannot be claimed', async () => {
    const { code } = (await create({ inviterUma: sender.umaAddress })).body;
    const foreign = await api.call('POST', `/invitations/${code}/cancel`, { auth: platformB });
    expect([foreign.status, foreign.body.code]).toEqual([403, 'FORBIDDEN']);
    const cancelled = await api.call('POST', `/invitations/${code}/cancel`, { auth: platformA });
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'CANCELLED']);
    const twice = await api.call('POST', `/invitations/${code}/cancel`, { auth: platformA });
    expect([twice.status, twice.body.code]).toEqual([400, 'INVITATION_CANCELLED']);
    const claim = await api.call('POST', `/invitations/${code}/claim`, { auth: platformB, body: { inviteeUma: '$bob@other.example' } });
    expect([claim.status, claim.body.code]).toEqual([400, 'INVITATION_CANCELLED']);
    expect(receiver.received.some((item) => item.body.type === 'INVITATION.CLAIMED' && item.body.data.code === code)).toBe(false);
  });

  it('expires at expiresAt: shown EXPIRED, and neither claimed nor cancelled after', async () => {
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const { code } = (await create({ inviterUma: sender.umaAddress, expiresAt })).body;
    const expired = await eventually(
      async () => (await api.call('GET', `/invitations/${code}`, { auth: platformA })).body,
      (body) => body.status === 'EXPIRED',
    );
    expect(expired).toMatchObject({ status: 'EXPIRED', expiresAt });
    const claim = await api.call('POST', `/invitations/${code}/claim`, { auth: platformB, body: { inviteeUma: '$bob@other.example' } });
    expect([claim.status, claim.body.code]).toEqual([400, 'EXPIRED']);
    const cancel = await api.call('POST', `/invitations/${code}/cancel`, { auth: platformA });
    expect([cancel.status, cancel.body.code]).toEqual([400, 'EXPIRED']);
  });

  it.each([
    ['a malformed inviterUma', () => ({ inviterUma: 'alice' }), 'INVALID_UMA_ADDRESS', 'inviterUma'],
    ['an inviterUma that is no customer of the platform', () => ({ inviterUma: '$nobody@acme.example' }), 'INVALID_INPUT', 'inviterUma'],
    ['another platform’s customer', () => ({ inviterUma: strangerCustomer.umaAddress }), 'INVALID_INPUT', 'inviterUma'],
    [
      'an expiresAt in the past',
      () => ({ inviterUma: sender.umaAddress, expiresAt: '2020-01-01T00:00:00Z' }),
      'INVALID_INPUT',
      'expiresAt',
    ],
    ['an expiresAt that is no date', () => ({ inviterUma: sender.umaAddress, expiresAt: 'tomorrow' }), 'INVALID_INPUT', 'expiresAt'],
    ['a zero amountToSend', () => ({ inviterUma: sender.umaAddress, amountToSend: 0 }), 'INVALID_INPUT', 'amountToSend'],
    ['a fractional amountToSend', () => ({ inviterUma: sender.umaAddress, amountToSend: 1.5 }), 'INVALID_INPUT', 'amountToSend'],
    ['an unknown member', () => ({ inviterUma: sender.umaAddress, referrer: 'x' }), 'INVALID_INPUT', 'referrer'],
  ])('refuses to create with %s', async (_case, body, code, field) => {
    const reply = await create(body());
    expect([reply.status, reply.body.code]).toEqual([400, code]);
    expect(fieldsOf(reply.body)).toContain(field);
  });

  it('answers 404 for an unknown or malformed code, and 400 for a malformed invitee', async () => {
    for (const code of ['zzzzzzzzzz', 'NOT-A-CODE', '%E0%A4%A']) {
      const reply = await api.call('GET', `/invitations/${code}`, { auth: platformA });
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expect(reply.status).toBeLessThan(500);
    }
    expect((await api.call('GET', '/invitations/zzzzzzzzzz', { auth: platformA })).body.code).toBe('INVITATION_NOT_FOUND');
    expect((await api.call('POST', '/invitations/zzzzzzzzzz/cancel', { auth: platformA })).status).toBe(404);
    const { code } = (await create({ inviterUma: sender.umaAddress })).body;
    const bad = await api.call('POST', `/invitations/${code}/claim`, { auth: platformB, body: { inviteeUma: 'bob@other.example' } });
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_UMA_ADDRESS']);
    const self = await api.call('POST', `/invitations/${code}/claim`, { auth: platformB, body: { inviteeUma: sender.umaAddress } });
    expect([self.status, fieldsOf(self.body)]).toEqual([400, ['inviteeUma']]);
    expect((await api.call('GET', `/invitations/${code}`, { auth: platformA })).body.status).toBe('PENDING');
  });
});

describe('GET /uma-providers', () => {
  it('lists the directory newest-name-first by default, pages with a cursor, and filters', async () => {
    const all = await api.call('GET', '/uma-providers', { auth: platformA });
    expect(all.status).toBe(200);
    const names: string[] = all.body.data.map((provider: Named) => provider.name);
    expect(names).toEqual([...names].sort().reverse());
    expect(all.body).toMatchObject({ hasMore: false, totalCount: names.length });

    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', `/uma-providers?sortOrder=asc&limit=3${cursor ? `&cursor=${cursor}` : ''}`, { auth: platformA });
      paged.push(...page.body.data.map((provider: Named) => provider.name));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual([...names].reverse());

    const mexico = await api.call('GET', '/uma-providers?countryCode=MX&currencyCode=MXN', { auth: platformA });
    expect(mexico.body.data.map((provider: Named) => provider.domain).sort()).toEqual(['sandbox.uma.money', 'zocalo.example']);
    const allowedOnly = await api.call('GET', '/uma-providers?countryCode=MX&hasBlockedProviders=false', { auth: platformA });
    expect(allowedOnly.body.data.map((provider: Named) => [provider.domain, provider.allowListStatus])).toEqual([
      ['sandbox.uma.money', true],
    ]);
  });

  it.each([
    ['countryCode=usa', 'countryCode'],
    ['currencyCode=usd', 'currencyCode'],
    ['currencyCode=XYZ', 'currencyCode'],
    ['hasBlockedProviders=maybe', 'hasBlockedProviders'],
    ['sortOrder=up', 'sortOrder'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['cursor=garbage', 'cursor'],
  ])('refuses ?%s with a 400 naming %s', async (query, field) => {
    const reply = await api.call('GET', `/uma-providers?${query}`, { auth: platformA });
    expect(reply.status).toBe(400);
    expect(fieldsOf(reply.body)).toContain(field);
  });
});

describe('GET /discoveries', () => {
  it('lists institutions for a country and currency, and all of them with neither', async () => {
    const philippines = await api.call('GET', '/discoveries?country=PH&currency=PHP', { auth: platformA });
    expect(philippines.status).toBe(200);
    expect(philippines.body.data).toContainEqual({ bankName: 'BDO Unibank', displayName: 'BDO Unibank', country: 'PH', currency: 'PHP' });
    expect(philippines.body.data.every((institution: Institution) => institution.country === 'PH' && institution.currency === 'PHP')).toBe(
      true,
    );
    const all = await api.call('GET', '/discoveries', { auth: platformA });
    expect(new Set(all.body.data.map((institution: Institution) => institution.country)).size).toBeGreaterThan(5);
    const euro = await api.call('GET', '/discoveries?currency=EUR', { auth: platformA });
    expect(euro.body.data.map((institution: Institution) => institution.country).sort()).toEqual(['DE', 'ES', 'FR']);
  });

  it.each([
    ['country=ph', 'country'],
    ['country=PHL', 'country'],
    ['currency=XYZ', 'currency'],
    ['currency=php', 'currency'],
    ['bank=BDO', 'bank'],
  ])('refuses ?%s with a 400 naming %s', async (query, field) => {
    const reply = await api.call('GET', `/discoveries?${query}`, { auth: platformA });
    expect(reply.status).toBe(400);
    expect(fieldsOf(reply.body)).toContain(field);
  });
});

describe('POST /crypto/estimate-withdrawal-fee', () => {
  const solana = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
  const estimate = (body: Record<string, unknown>, auth: Credentials = platformA) =>
    api.call('POST', '/crypto/estimate-withdrawal-fee', {
      auth,
      body: {
        internalAccountId: accountIn(sender, 'USDC'),
        currency: 'USDC',
        cryptoNetwork: 'SOLANA',
        amount: 5_000_000,
        destinationAddress: solana,
        ...body,
      },
    });

  it('estimates the network and application fees and what arrives', async () => {
    const reply = await estimate({});
    expect(reply.status).toBe(200);
    // Network 0.001 USDC; application 0.10 USDC + 0.3 % of 5 USDC = 115 000; total 116 000.
    expect(reply.body).toEqual({
      networkFee: 1_000,
      networkFeeAsset: 'USDC',
      applicationFee: 115_000,
      totalFee: 116_000,
      netAmount: 4_884_000,
    });
    const bitcoin = await estimate({
      internalAccountId: accountIn(sender, 'BTC'),
      currency: 'BTC',
      cryptoNetwork: 'BITCOIN',
      amount: 100_000,
      destinationAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    });
    expect(bitcoin.body).toEqual({ networkFee: 2_000, networkFeeAsset: 'BTC', applicationFee: 450, totalFee: 2_450, netAmount: 97_550 });
  });

  it.each([
    [
      'an EVM address on Solana',
      { destinationAddress: '0x52908400098527886E0F7030069857D2E4169EE7' },
      'INVALID_INPUT',
      'destinationAddress',
    ],
    ['a network USDC is not withdrawn on', { cryptoNetwork: 'BITCOIN' }, 'INVALID_INPUT', 'cryptoNetwork'],
    ['an unknown network', { cryptoNetwork: 'DOGECOIN' }, 'INVALID_INPUT', 'cryptoNetwork'],
    [
      'a currency the account does not hold',
      { currency: 'BTC', cryptoNetwork: 'BITCOIN', destinationAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' },
      'INVALID_INPUT',
      'currency',
    ],
    ['a fiat currency', { currency: 'USD' }, 'INVALID_INPUT', 'currency'],
    ['an amount the fees take whole', { amount: 100_000 }, 'AMOUNT_OUT_OF_RANGE', 'amount'],
    ['a zero amount', { amount: 0 }, 'INVALID_INPUT', 'amount'],
    ['an amount given as text', { amount: '5000000' }, 'INVALID_INPUT', 'amount'],
    ['a missing address', { destinationAddress: undefined }, 'INVALID_INPUT', 'destinationAddress'],
  ])('refuses %s with a 400 naming the field', async (_case, body, code, field) => {
    const reply = await estimate(body);
    expect([reply.status, reply.body.code]).toEqual([400, code]);
    expect(fieldsOf(reply.body)).toContain(field);
  });

  it('answers 404 for another platform’s account or an id that names none', async () => {
    const foreign = await estimate({}, platformB);
    expect(foreign.status).toBe(404);
    const malformed = await estimate({ internalAccountId: 'InternalAccount:nope' });
    expect(malformed.status).toBe(404);
  });
});

describe('bad input and access on every route', () => {
  it.each([
    ['POST', '/invitations', { rawBody: '[1,2]' }],
    ['POST', '/invitations', { body: {} }],
    ['POST', '/invitations', { rawBody: '{"inviterUma":' }],
    ['POST', '/invitations/abc123defg/claim', { body: {} }],
    ['POST', '/invitations/abc123defg/claim', { body: { inviteeUma: null } }],
    ['POST', '/crypto/estimate-withdrawal-fee', { body: {} }],
    [
      'POST',
      '/crypto/estimate-withdrawal-fee',
      {
        body: {
          internalAccountId: 'InternalAccount:x',
          currency: 'USDC',
          cryptoNetwork: 'SOLANA',
          amount: 1,
          destinationAddress: 'x',
          fee: 1,
        },
      },
    ],
    ['GET', '/receiver/uma/%24success.usd%40sandbox.uma.money?senderUmaAddress=%24a%40b.example&senderUmaAddress=%24c%40d.example', {}],
    ['GET', '/receiver/external-account/ExternalAccount:0196f1a0-0000-7000-8000-000000000001?customerId=', {}],
  ])('%s %s with a bad body or query is a 400 with the error body', async (method, path, options) => {
    const reply = await api.call(method, path, { auth: platformA, ...options });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ status: 400, code: expect.any(String), message: expect.any(String) });
  });

  it.each([
    ['GET', '/receiver/uma/%24success.usd%40sandbox.uma.money?senderUmaAddress=%24a%40b.example'],
    ['GET', '/receiver/external-account/ExternalAccount:0196f1a0-0000-7000-8000-000000000001?senderUmaAddress=%24a%40b.example'],
    ['GET', '/uma-providers'],
    ['GET', '/discoveries'],
    ['POST', '/crypto/estimate-withdrawal-fee'],
    ['POST', '/invitations'],
    ['GET', '/invitations/abc123defg'],
    ['POST', '/invitations/abc123defg/claim'],
    ['POST', '/invitations/abc123defg/cancel'],
  ])('%s %s without credentials is a 401', async (method, path) => {
    const reply = await api.call(method, path, { auth: null });
    expect([reply.status, reply.body.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('replays POST /invitations under one Idempotency-Key instead of creating a second invitation', async () => {
    const headers = { 'idempotency-key': 'uma-invitation-1' };
    const first = await api.call('POST', '/invitations', { auth: platformA, headers, body: { inviterUma: sender.umaAddress } });
    const second = await api.call('POST', '/invitations', { auth: platformA, headers, body: { inviterUma: sender.umaAddress } });
    expect([first.status, second.status, second.body.code]).toEqual([201, 201, first.body.code]);
    const different = await api.call('POST', '/invitations', {
      auth: platformA,
      headers,
      body: { inviterUma: sender.umaAddress, firstName: 'Other' },
    });
    expect([different.status, different.body.code]).toEqual([409, 'CONFLICT']);
  });
});
