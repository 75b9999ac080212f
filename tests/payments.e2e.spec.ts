// Payments end to end with every app running: exchange rates with the platform's fees and their
// filters, quotes locked on either side with exact totals and their PENDING transaction from the
// first moment, real-time funding instructions, UMA sandbox destinations, the transactions list
// with its filters and paging, the integration event that carries the whole transaction, bad input
// refused field by field with nothing created, and one platform never seeing another's payments.
import { connect, type NatsConnection, type Subscription } from 'nats';
import { createApi, type Credentials } from './support/api';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';
import { eventually } from '@corridor/testing';
import { forgetIdempotencyRecord } from './support/idempotency';

type Account = { id: string; customerId?: string; balance: { amount: number; currency: { code: string } } };

let stack: StackView;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
let platformAId: string;
let nats: NatsConnection;

type Customer = { customerId: string; platformCustomerId: string; accounts: Account[] };
let customerCount = 0;
const newCustomer = async (auth: Credentials, currencies: string[]): Promise<Customer> => {
  customerCount += 1;
  const created = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: `Payer ${customerCount}`, currencies },
  });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  const accounts = await eventually(
    async () =>
      (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth })).body.data as Account[],
    (list) => list.length >= currencies.length,
  );
  return { customerId, platformCustomerId: created.body.platformCustomerId, accounts };
};
const accountIn = (customer: Customer, currency: string): string =>
  customer.accounts.find((account) => account.balance.currency.code === currency)?.id ?? '';

let ibanCount = 0;
/** A EUR bank account of the customer; each call a new IBAN (identities are unique per platform). */
const euroAccount = async (auth: Credentials, customerId: string): Promise<string> => {
  ibanCount += 1;
  const bban = `370400440532${String(ibanCount).padStart(6, '0')}`;
  // IBAN check digits for DE + bban.
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

const quote = (auth: Credentials, body: unknown) => api.call('POST', '/quotes', { auth, body });
const transactionCount = async (auth: Credentials): Promise<number> =>
  (await api.call('GET', '/transactions?limit=1', { auth })).body.totalCount as number;
const fieldsOf = (body: { details?: { errors?: { field: string }[]; field?: string } }): string[] =>
  body.details?.errors?.map((error) => error.field) ?? (body.details?.field ? [body.details.field] : []);

let sender: Customer;
let euros: string;

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'payments');
  const a = await stack.createPlatform();
  platformA = a.token as Credentials;
  platformAId = a.platformId;
  platformB = (await stack.createPlatform()).token as Credentials;
  nats = await connect(stack.bus.harness);
  sender = await newCustomer(platformA, ['USD', 'MXN']);
  euros = await euroAccount(platformA, sender.customerId);
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await nats?.close();
  await stack?.close();
});

describe('GET /exchange-rates', () => {
  it('prices the asked corridors for the default 10 000 minor units, the platform’s fees included', async () => {
    const reply = await api.call('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=INR', {
      auth: platformA,
    });
    expect(reply.status).toBe(200);
    // Fees 10 + 0.3 % = 40 cents; 9 960 cents at 1.08 USD per EUR = 9 222 EUR cents, at 0.012 USD per INR = 830 000 paise.
    expect(
      reply.body.data.map((rate: any) => [
        rate.destinationCurrency.code,
        rate.destinationPaymentRail,
        rate.sendingAmount,
        rate.receivingAmount,
        rate.exchangeRate,
        rate.fees,
      ]),
    ).toEqual([
      ['EUR', 'SEPA_INSTANT', 10_000, 9_222, 1.08, { fixed: 10, total: 40 }],
      ['INR', 'UPI', 10_000, 830_000, 0.012, { fixed: 10, total: 40 }],
    ]);
    expect(reply.body.data[0]).toMatchObject({
      sourceCurrency: { code: 'USD', decimals: 2 },
      minSendingAmount: 100,
      maxSendingAmount: 1_000_000_000,
    });
  });

  it('takes a sending amount, and lists every destination of a source when none is named', async () => {
    const one = await api.call('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=250000', {
      auth: platformA,
    });
    // 250 000 − (10 + 750) = 249 240 cents → 230 777.7… → 230 777.
    expect([one.body.data[0].sendingAmount, one.body.data[0].receivingAmount, one.body.data[0].fees.total]).toEqual([
      250_000, 230_777, 760,
    ]);
    const all = await api.call('GET', '/exchange-rates?sourceCurrency=GBP', { auth: platformA });
    expect(all.body.data.map((rate: any) => rate.destinationCurrency.code).sort()).toEqual([
      'AED',
      'BRL',
      'CAD',
      'EUR',
      'INR',
      'MXN',
      'NGN',
      'PHP',
      'USD',
    ]);
  });

  it.each([
    ['sourceCurrency=usd', 'sourceCurrency'],
    ['sourceCurrency=XYZ', 'sourceCurrency'],
    ['destinationCurrency=EUR&destinationCurrency=QQQ', 'destinationCurrency'],
    ['sendingAmount=-1', 'sendingAmount'],
    ['sendingAmount=1.5', 'sendingAmount'],
    ['sendingAmount=ten', 'sendingAmount'],
    ['sendingAmount=99999999999999999999', 'sendingAmount'],
  ])('refuses ?%s with a 400 naming %s', async (query, field) => {
    const reply = await api.call('GET', `/exchange-rates?${query}`, { auth: platformA });
    expect(reply.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(fieldsOf(reply.body)).toContain(field);
  });

  it('refuses a sending amount above what the source currency can send', async () => {
    const reply = await api.call('GET', '/exchange-rates?sourceCurrency=USD&sendingAmount=1000000001', { auth: platformA });
    expect(reply.body).toMatchObject({ status: 400, code: 'AMOUNT_OUT_OF_RANGE', details: { field: 'sendingAmount' } });
  });
});

describe('POST /quotes and its transaction', () => {
  it('quotes a locked sending amount with exact totals, and its PENDING transaction exists at once', async () => {
    const events: unknown[] = [];
    const subscription: Subscription = nats.subscribe(`${stack.subjectPrefix}.events.payments.Transaction.QuoteCreated`);
    void (async () => {
      for await (const message of subscription) events.push(message.json());
    })();
    await nats.flush();
    const body = {
      source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD') },
      destination: { destinationType: 'ACCOUNT', accountId: euros },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 100_000,
      description: 'Invoice 7',
      purposeOfPayment: 'GOODS_OR_SERVICES',
    };
    const created = await quote(platformA, body);
    expect(created.status).toBe(201);
    // 100 000 − (10 + 300) = 99 690 cents at 1.08 USD per EUR = 92 305.5… → 92 305 EUR cents.
    expect(created.body).toMatchObject({
      status: 'PENDING',
      source: body.source,
      destination: body.destination,
      sendingCurrency: { code: 'USD' },
      receivingCurrency: { code: 'EUR' },
      totalSendingAmount: 100_000,
      totalReceivingAmount: 92_305,
      exchangeRate: 1.08,
      feesIncluded: 310,
      rateDetails: { serviceApiFixedFee: 10, serviceApiVariableFeeRate: 0.003, serviceApiVariableFeeAmount: 300, counterpartyFixedFee: 0 },
    });
    expect(Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt)).toBe(300_000);
    expect(created.body).not.toHaveProperty('paymentInstructions');

    expect(await api.call('GET', `/quotes/${created.body.id}`, { auth: platformA })).toMatchObject({ status: 200, body: created.body });
    const transaction = await api.call('GET', `/transactions/${created.body.transactionId}`, { auth: platformA });
    expect(transaction.body).toMatchObject({
      id: created.body.transactionId,
      type: 'OUTGOING',
      status: 'PENDING',
      customerId: sender.customerId,
      platformCustomerId: sender.platformCustomerId,
      quoteId: created.body.id,
      source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD'), currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: euros, currency: 'EUR' },
      sentAmount: { amount: 100_000, currency: { code: 'USD' } },
      receivedAmount: { amount: 92_305, currency: { code: 'EUR' } },
      exchangeRate: 1.08,
      fees: 310,
      description: 'Invoice 7',
      rateDetails: created.body.rateDetails,
    });

    // The integration event carries the whole transaction, amounts as decimal strings.
    const published = await eventually(
      async () => events,
      (list) => list.some((event: any) => event.data.transaction.id === created.body.transactionId),
    );
    subscription.unsubscribe();
    expect(published.find((event: any) => event.data.transaction.id === created.body.transactionId)).toMatchObject({
      type: 'QuoteCreated',
      platformId: platformAId,
      streamId: created.body.transactionId,
      data: {
        transaction: {
          status: 'PENDING',
          sentAmount: { value: '100000', currency: 'USD' },
          receivedAmount: { value: '92305', currency: 'EUR' },
          fees: '310',
          quoteId: created.body.id,
        },
      },
    });
  });

  it('quotes a locked receiving amount: the receiver gets exactly it, the sender pays the least that covers it', async () => {
    const reply = await quote(platformA, {
      source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD') },
      destination: { destinationType: 'ACCOUNT', accountId: euros },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 92_306,
    });
    // 92 306 EUR cents need 99 690.48 → 99 691 cents converted. Sending 100 001 leaves 100 001 − 10 − 301 = 99 690,
    // one short; 100 002 leaves 100 002 − 10 − 301 = 99 691.
    expect([reply.status, reply.body.totalReceivingAmount, reply.body.totalSendingAmount, reply.body.feesIncluded]).toEqual([
      201, 92_306, 100_002, 311,
    ]);
  });

  it('sends from the platform’s own account to a sandbox UMA address, naming the platform as the customer', async () => {
    const [usd] = (await api.call('GET', '/platform/internal-accounts?currency=USD', { auth: platformA })).body.data as Account[];
    const reply = await quote(platformA, {
      source: { sourceType: 'ACCOUNT', accountId: usd?.id },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.mxn@sandbox.uma.money' },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 5_000,
    });
    expect([reply.status, reply.body.receivingCurrency.code]).toEqual([201, 'MXN']);
    const transaction = (await api.call('GET', `/transactions/${reply.body.transactionId}`, { auth: platformA })).body;
    expect([transaction.customerId, transaction.platformCustomerId, transaction.destination]).toEqual([
      platformAId,
      platformAId,
      { destinationType: 'UMA_ADDRESS', umaAddress: '$success.mxn@sandbox.uma.money', currency: 'MXN' },
    ]);
  });

  it('answers a retry whose first answer was lost with the quote the first attempt made, and makes no second transaction', async () => {
    const headers = { 'idempotency-key': `quote-lost-${Date.now()}` };
    const body = {
      source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD') },
      destination: { destinationType: 'ACCOUNT', accountId: euros },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 7_000,
    };
    const first = await api.call('POST', '/quotes', { auth: platformA, body, headers });
    expect(first.status).toBe(201);
    const transactions = await transactionCount(platformA);
    await forgetIdempotencyRecord(stack, headers['idempotency-key']);
    const retry = await api.call('POST', '/quotes', { auth: platformA, body, headers });
    expect(retry.status).toBe(201);
    expect([retry.body.id, retry.body.transactionId]).toEqual([first.body.id, first.body.transactionId]);
    expect(retry.body).toEqual(first.body);
    expect(await transactionCount(platformA)).toBe(transactions);
    // Another platform's quote under the same key is its own.
    const [usd] = (await api.call('GET', '/platform/internal-accounts?currency=USD', { auth: platformB })).body.data as Account[];
    const other = await api.call('POST', '/quotes', {
      auth: platformB,
      headers,
      body: {
        ...body,
        source: { sourceType: 'ACCOUNT', accountId: usd?.id },
        destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money' },
      },
    });
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('gives a real-time funded quote instructions to pay it, with its own reference', async () => {
    const reply = await quote(platformA, {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'MXN', customerId: sender.customerId },
      destination: { destinationType: 'ACCOUNT', accountId: euros },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 1_000,
    });
    expect(reply.status).toBe(201);
    expect(reply.body.paymentInstructions).toEqual([
      expect.objectContaining({
        accountOrWalletInfo: expect.objectContaining({ accountType: 'MXN_ACCOUNT', reference: expect.stringMatching(/^CRD[0-9A-F]{16}$/) }),
      }),
    ]);
    expect(reply.body.paymentInstructions[0].instructionsNotes).toContain(
      `Send exactly ${reply.body.totalSendingAmount} minor units of MXN`,
    );
    const transaction = (await api.call('GET', `/transactions/${reply.body.transactionId}`, { auth: platformA })).body;
    expect([transaction.source, transaction.paymentInstructions]).toEqual([
      { sourceType: 'REALTIME_FUNDING', currency: 'MXN', customerId: sender.customerId },
      reply.body.paymentInstructions,
    ]);
  });
});

describe('GET /transactions', () => {
  it('filters by customer, status and type, pages either way without gaps, and bounds by dates', async () => {
    const payer = await newCustomer(platformA, ['GBP']);
    const payee = await euroAccount(platformA, payer.customerId);
    const ids: string[] = [];
    for (const amount of [1_000, 2_000, 3_000]) {
      const created = await quote(platformA, {
        source: { sourceType: 'ACCOUNT', accountId: accountIn(payer, 'GBP') },
        destination: { destinationType: 'ACCOUNT', accountId: payee },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: amount,
      });
      ids.push(created.body.transactionId);
    }
    const list = (query: string) =>
      api.call('GET', `/transactions?customerId=${encodeURIComponent(payer.customerId)}&${query}`, { auth: platformA });
    const newestFirst = await list('limit=2');
    expect([newestFirst.body.data.map((item: any) => item.id), newestFirst.body.hasMore, newestFirst.body.totalCount]).toEqual([
      [ids[2], ids[1]],
      true,
      3,
    ]);
    const rest = await list(`limit=2&cursor=${encodeURIComponent(newestFirst.body.nextCursor)}`);
    expect([rest.body.data.map((item: any) => item.id), rest.body.hasMore]).toEqual([[ids[0]], false]);
    const oldestFirst = await list('sortOrder=asc&limit=2');
    const oldestRest = await list(`sortOrder=asc&limit=2&cursor=${encodeURIComponent(oldestFirst.body.nextCursor)}`);
    expect([...oldestFirst.body.data, ...oldestRest.body.data].map((item: any) => item.id)).toEqual(ids);
    expect((await list('status=PENDING&type=OUTGOING')).body.totalCount).toBe(3);
    expect((await list('status=COMPLETED')).body).toMatchObject({ data: [], hasMore: false, totalCount: 0 });
    expect((await list('type=INCOMING')).body.totalCount).toBe(0);
    const first = (await api.call('GET', `/transactions/${ids[0]}`, { auth: platformA })).body;
    expect(
      (await list(`startDate=${encodeURIComponent(first.createdAt)}&endDate=${encodeURIComponent(first.createdAt)}`)).body.data.map(
        (item: any) => item.id,
      ),
    ).toEqual([ids[0]]);
    expect((await list(`platformCustomerId=${encodeURIComponent(payer.platformCustomerId)}`)).body.totalCount).toBe(3);
  });

  it.each([
    ['status=DONE', 'status'],
    ['type=SIDEWAYS', 'type'],
    ['sortOrder=up', 'sortOrder'],
    ['startDate=yesterday', 'startDate'],
    ['limit=101', 'limit'],
    ['cursor=not-ours', 'cursor'],
  ])('refuses ?%s with a 400 naming %s', async (query, field) => {
    const reply = await api.call('GET', `/transactions?${query}`, { auth: platformA });
    expect(reply.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(fieldsOf(reply.body)).toContain(field);
  });
});

describe('bad input to POST /quotes', () => {
  const valid = () => ({
    source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD') },
    destination: { destinationType: 'ACCOUNT', accountId: euros },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 10_000,
  });

  const cases: [string, () => Record<string, unknown>, string, string][] = [
    ['a zero amount', () => ({ ...valid(), lockedCurrencyAmount: 0 }), 'INVALID_INPUT', 'lockedCurrencyAmount'],
    ['a negative amount', () => ({ ...valid(), lockedCurrencyAmount: -5 }), 'INVALID_INPUT', 'lockedCurrencyAmount'],
    ['a fractional amount', () => ({ ...valid(), lockedCurrencyAmount: 10.5 }), 'INVALID_INPUT', 'lockedCurrencyAmount'],
    ['an amount as text', () => ({ ...valid(), lockedCurrencyAmount: '10000' }), 'INVALID_INPUT', 'lockedCurrencyAmount'],
    ['a huge amount', () => ({ ...valid(), lockedCurrencyAmount: 9_000_000_000_000_001 }), 'INVALID_INPUT', 'lockedCurrencyAmount'],
    [
      'an amount a payment cannot send',
      () => ({ ...valid(), lockedCurrencyAmount: 5_000_000_000 }),
      'AMOUNT_OUT_OF_RANGE',
      'lockedCurrencyAmount',
    ],
    [
      'an amount below the least a payment sends',
      () => ({ ...valid(), lockedCurrencyAmount: 99 }),
      'AMOUNT_OUT_OF_RANGE',
      'lockedCurrencyAmount',
    ],
    ['no amount', () => ({ ...valid(), lockedCurrencyAmount: undefined }), 'INVALID_INPUT', 'lockedCurrencyAmount'],
    ['a bad lock side', () => ({ ...valid(), lockedCurrencySide: 'BOTH' }), 'INVALID_INPUT', 'lockedCurrencySide'],
    [
      'the same currency on both sides',
      () => ({ ...valid(), destination: { destinationType: 'ACCOUNT', accountId: accountIn(sender, 'USD') } }),
      'INVALID_INPUT',
      'destination',
    ],
    [
      'an unknown funding currency',
      () => ({ ...valid(), source: { sourceType: 'REALTIME_FUNDING', currency: 'XYZ' } }),
      'INVALID_INPUT',
      'source.currency',
    ],
    [
      'an unknown source type',
      () => ({ ...valid(), source: { sourceType: 'CARD', accountId: 'x' } }),
      'INVALID_INPUT',
      'source.sourceType',
    ],
    [
      'a malformed source account',
      () => ({ ...valid(), source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:nope' } }),
      'INVALID_INPUT',
      'source.accountId',
    ],
    [
      'an unknown source account',
      () => ({ ...valid(), source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:0190f000-0000-7000-8000-000000000000' } }),
      'INVALID_INPUT',
      'source.accountId',
    ],
    [
      'a malformed destination account',
      () => ({ ...valid(), destination: { destinationType: 'ACCOUNT', accountId: 'Bank:42' } }),
      'INVALID_INPUT',
      'destination.accountId',
    ],
    [
      'an unknown destination account',
      () => ({
        ...valid(),
        destination: { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:0190f000-0000-7000-8000-000000000000' },
      }),
      'INVALID_INPUT',
      'destination.accountId',
    ],
    [
      'a member the request does not have',
      () => ({ ...valid(), source: { ...valid().source, colour: 'red' } }),
      'INVALID_INPUT',
      'source.colour',
    ],
    [
      'a malformed UMA address',
      () => ({ ...valid(), destination: { destinationType: 'UMA_ADDRESS', umaAddress: 'alice@example' } }),
      'INVALID_UMA_ADDRESS',
      'destination.umaAddress',
    ],
    [
      'a sandbox UMA address nobody has',
      () => ({ ...valid(), destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$non.existent.eur@sandbox.uma.money' } }),
      'INVALID_RECEIVER',
      'destination.umaAddress',
    ],
    [
      'an unknown customer',
      () => ({
        ...valid(),
        source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: 'Customer:0190f000-0000-7000-8000-000000000000' },
      }),
      'INVALID_INPUT',
      'source.customerId',
    ],
    [
      'immediatelyExecute on a real-time funded quote',
      () => ({ ...valid(), source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' }, immediatelyExecute: true }),
      'INVALID_INPUT',
      'immediatelyExecute',
    ],
    ['a bad purpose', () => ({ ...valid(), purposeOfPayment: 'BRIBE' }), 'INVALID_INPUT', 'purposeOfPayment'],
  ];

  it.each(cases)('refuses %s with a 400 naming the field, and creates nothing', async (_case, body, code, field) => {
    const before = await transactionCount(platformA);
    const reply = await quote(platformA, body());
    expect(reply.body).toMatchObject({ status: 400, code });
    expect(fieldsOf(reply.body)).toContain(field);
    expect(await transactionCount(platformA)).toBe(before);
  });

  it('points a same-currency quote to the transfer endpoints', async () => {
    const reply = await quote(platformA, { ...valid(), destination: { destinationType: 'ACCOUNT', accountId: accountIn(sender, 'USD') } });
    expect(reply.body.message).toMatch(/\/transfer-in.*\/transfer-out/);
  });

  it('answers malformed and unknown quote and transaction ids with 404', async () => {
    expect((await api.call('GET', '/quotes/not-a-quote', { auth: platformA })).body).toMatchObject({
      status: 404,
      code: 'QUOTE_NOT_FOUND',
    });
    expect((await api.call('GET', '/quotes/Quote:0190f000-0000-7000-8000-000000000000', { auth: platformA })).body).toMatchObject({
      status: 404,
      code: 'QUOTE_NOT_FOUND',
    });
    expect((await api.call('GET', '/transactions/Transaction:oops', { auth: platformA })).body).toMatchObject({
      status: 404,
      code: 'TRANSACTION_NOT_FOUND',
    });
    expect(
      (await api.call('GET', '/transactions/Transaction:0190f000-0000-7000-8000-000000000000', { auth: platformA })).body,
    ).toMatchObject({ status: 404, code: 'TRANSACTION_NOT_FOUND' });
  });
});

describe('tenancy', () => {
  it('never shows one platform’s quotes or transactions to another, and refuses its accounts as either side', async () => {
    const created = await quote(platformA, {
      source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD') },
      destination: { destinationType: 'ACCOUNT', accountId: euros },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 7_777,
    });
    expect(created.status).toBe(201);
    expect((await api.call('GET', `/quotes/${created.body.id}`, { auth: platformB })).body).toMatchObject({
      status: 404,
      code: 'QUOTE_NOT_FOUND',
    });
    expect((await api.call('GET', `/transactions/${created.body.transactionId}`, { auth: platformB })).body).toMatchObject({
      status: 404,
      code: 'TRANSACTION_NOT_FOUND',
    });
    const listed = await api.call('GET', '/transactions?limit=100', { auth: platformB });
    expect(listed.body.data.map((item: any) => item.id)).not.toContain(created.body.transactionId);
    expect(
      (await api.call('GET', `/transactions?customerId=${encodeURIComponent(sender.customerId)}`, { auth: platformB })).body,
    ).toMatchObject({ data: [], totalCount: 0 });

    const stranger = await newCustomer(platformB, ['EUR']);
    const before = await transactionCount(platformB);
    const foreignSource = await quote(platformB, {
      source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD') },
      destination: { destinationType: 'ACCOUNT', accountId: accountIn(stranger, 'EUR') },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    expect([foreignSource.body.code, fieldsOf(foreignSource.body)]).toEqual(['INVALID_INPUT', ['source.accountId']]);
    const foreignDestination = await quote(platformB, {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: euros },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    expect([foreignDestination.body.code, fieldsOf(foreignDestination.body)]).toEqual(['INVALID_INPUT', ['destination.accountId']]);
    const foreignCustomer = await quote(platformB, {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: sender.customerId },
      destination: { destinationType: 'ACCOUNT', accountId: accountIn(stranger, 'EUR') },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    expect([foreignCustomer.body.code, fieldsOf(foreignCustomer.body)]).toEqual(['INVALID_INPUT', ['source.customerId']]);
    expect(await transactionCount(platformB)).toBe(before);
  });
});

describe('payer fields on POST /quotes (issue 5 part 2)', () => {
  let rupees: string;

  beforeAll(async () => {
    const created = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: {
        customerId: sender.customerId,
        currency: 'INR',
        accountInfo: {
          accountType: 'INR_ACCOUNT',
          vpa: 'payee.7@upi',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ravi Kumar' },
        },
      },
    });
    expect(created.status).toBe(201);
    rupees = created.body.id as string;
  });

  const toRupees = (senderCustomerInfo?: Record<string, unknown>) => ({
    source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD') },
    destination: { destinationType: 'ACCOUNT', accountId: rupees },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 10_000,
    ...(senderCustomerInfo ? { senderCustomerInfo } : {}),
  });

  it('refuses a quote whose payer lacks what the corridor requires, naming every missing field, creating nothing', async () => {
    const before = await transactionCount(platformA);
    const refused = await quote(platformA, toRupees());
    expect(refused.body).toMatchObject({
      status: 400,
      code: 'MISSING_MANDATORY_USER_INFO',
      details: { field: 'senderCustomerInfo', missing: ['BIRTH_DATE', 'NATIONALITY'] },
    });
    expect(await transactionCount(platformA)).toBe(before);
  });

  it('quotes once senderCustomerInfo supplies them (the profile supplies the name)', async () => {
    const created = await quote(platformA, toRupees({ BIRTH_DATE: '1990-01-01', NATIONALITY: 'FR' }));
    expect(created.status).toBe(201);
    expect(created.body.receivingCurrency.code).toBe('INR');
  });

  it('refuses a senderCustomerInfo key that is not a payer field', async () => {
    const refused = await quote(platformA, toRupees({ BIRTH_DATE: '1990-01-01', NATIONALITY: 'FR', SHOE_SIZE: '42' }));
    expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'senderCustomerInfo.SHOE_SIZE' } });
  });
});

describe('GET /transactions account and reference filters on quotes (issue 5 part 5)', () => {
  it('finds a real-time funded quote by its instructions’ reference, and an UMA payment by the receiving address', async () => {
    const funded = await quote(platformA, {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'MXN', customerId: sender.customerId },
      destination: { destinationType: 'ACCOUNT', accountId: euros },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 50_000,
    });
    expect(funded.status).toBe(201);
    const reference = funded.body.paymentInstructions[0].accountOrWalletInfo.reference as string;
    const byReference = await api.call('GET', `/transactions?reference=${encodeURIComponent(reference)}`, { auth: platformA });
    expect(byReference.body.data.map((transaction: { id: string }) => transaction.id)).toEqual([funded.body.transactionId]);
    expect((await api.call('GET', `/transactions?reference=${encodeURIComponent(reference)}`, { auth: platformB })).body).toMatchObject({
      data: [],
      totalCount: 0,
    });

    const uma = await quote(platformA, {
      source: { sourceType: 'ACCOUNT', accountId: accountIn(sender, 'USD') },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.mxn@sandbox.uma.money' },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    expect(uma.status).toBe(201);
    const byReceiver = await api.call(
      'GET',
      `/transactions?receiverAccountIdentifier=${encodeURIComponent('$success.mxn@sandbox.uma.money')}&senderAccountIdentifier=${encodeURIComponent(accountIn(sender, 'USD'))}`,
      { auth: platformA },
    );
    expect(byReceiver.body.data.map((transaction: { id: string }) => transaction.id)).toContain(uma.body.transactionId);
    expect(
      byReceiver.body.data.every(
        (transaction: { destination: { umaAddress?: string } }) => transaction.destination.umaAddress === '$success.mxn@sandbox.uma.money',
      ),
    ).toBe(true);
  });
});
