// Same-currency transfers end to end with every app running: transfer-out holds the money, the
// sandbox rail picks the outcome from the external account's last three digits (002, 003, 004 fail
// at once, 005 stays pending then fails, anything else completes) and the hold settles or is
// released, so a failure never loses money; a shortfall is a 400 that changes nothing; a retried
// or racing request under one Idempotency-Key moves money once, even straight at the payments
// service; transfer-in pulls only from ACH accounts; bad input is a 4xx naming the field with
// nothing moved; the transactions list filters on accounts and references and pages by keyset;
// receipts are confirmed; another platform sees none of it; and the books balance at the end.
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { newUuid, type RequestContext, subjects, type TransactionWire, type TransferOutData } from '@corridor/contracts';
import { MessagingModule, ServiceClient } from '@corridor/messaging';
import { assertLedgerConserved, eventually } from '@corridor/testing';
import { createApi, type Credentials } from './support/api';
import { type Stack, startStack } from './support/stack';

type Account = { id: string; balance: { amount: number }; totalBalance: { amount: number }; fundingPaymentInstructions: unknown[] };

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformAId: string;
let platformB: Credentials;
let natsContext: INestApplicationContext | undefined;

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' };
let customerCount = 0;
let accountCount = 0;

type Customer = { customerId: string; usd: string; eur: string };
const newCustomer = async (auth: Credentials, funding = 0): Promise<Customer> => {
  customerCount += 1;
  const created = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: `Tess ${customerCount}`, currencies: ['USD', 'EUR'] },
  });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  const accounts = await eventually(
    async () =>
      (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth })).body
        .data as (Account & { balance: { currency: { code: string } } })[],
    (list) => list.length >= 2,
  );
  const usd = accounts.find((account) => account.balance.currency.code === 'USD')?.id ?? '';
  const eur = accounts.find((account) => account.balance.currency.code === 'EUR')?.id ?? '';
  if (funding > 0)
    expect((await api.call('POST', `/sandbox/internal-accounts/${usd}/fund`, { auth, body: { amount: funding } })).status).toBe(200);
  return { customerId, usd, eur };
};

/** A USD bank account (ACH, so it can be pulled from) whose account number ends in `suffix`. */
const usdBankAccount = async (auth: Credentials, customerId: string, suffix = '001'): Promise<string> => {
  accountCount += 1;
  const accountNumber = `4${String(accountCount).padStart(7, '0')}0${suffix}`;
  const created = await api.call('POST', '/customers/external-accounts', {
    auth,
    body: {
      customerId,
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: '011000015', beneficiary: person },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
};

const euroBankAccount = async (auth: Credentials, customerId: string): Promise<string> => {
  accountCount += 1;
  const bban = `370400440532${String(accountCount).padStart(6, '0')}`;
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
        beneficiary: { ...person, countryOfResidence: 'DE' },
      },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
};

const account = async (auth: Credentials, customerId: string, accountId: string): Promise<Account> => {
  const list = (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth })).body
    .data as Account[];
  const found = list.find((candidate) => candidate.id === accountId);
  if (!found) throw new Error(`${accountId} is not listed`);
  return found;
};
const balances = async (auth: Credentials, customer: Customer, accountId = customer.usd): Promise<[number, number]> => {
  const found = await account(auth, customer.customerId, accountId);
  return [found.balance.amount, found.totalBalance.amount];
};

const transferOut = (auth: Credentials, body: unknown, key?: string) =>
  api.call('POST', '/transfer-out', { auth, body, ...(key ? { headers: { 'Idempotency-Key': key } } : {}) });
const transferIn = (auth: Credentials, body: unknown, key?: string) =>
  api.call('POST', '/transfer-in', { auth, body, ...(key ? { headers: { 'Idempotency-Key': key } } : {}) });
const out = (source: string, destination: string, amount: unknown) => ({
  source: { accountId: source },
  destination: { accountId: destination },
  amount,
});
const settled = (auth: Credentials, transactionId: string) =>
  eventually(
    async () => (await api.call('GET', `/transactions/${transactionId}`, { auth })).body as TransactionWire,
    (transaction) => transaction.status === 'COMPLETED' || transaction.status === 'FAILED',
    20_000,
  );
const transactionCount = async (auth: Credentials): Promise<number> =>
  (await api.call('GET', '/transactions?limit=1', { auth })).body.totalCount as number;
const fieldsOf = (body: { details?: { errors?: { field: string }[]; field?: string } }): string[] =>
  body.details?.errors?.map((error) => error.field) ?? (body.details?.field ? [body.details.field] : []);

beforeAll(async () => {
  // A 005 transfer stays pending 2 s here instead of 30, and due transfers are looked at every second.
  stack = await startStack({ env: { TRANSFER_PENDING_SECONDS: '2', TRANSFER_SWEEP_SECONDS: '1' } });
  api = createApi(stack, 'transfers');
  const a = await stack.createPlatform();
  platformA = a.token as Credentials;
  platformAId = a.platformId;
  platformB = (await stack.createPlatform()).token as Credentials;
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await natsContext?.close();
  await stack?.close();
});

describe('POST /transfer-out', () => {
  it('answers PENDING with the whole transaction, then completes: the hold settles and the money is gone', async () => {
    const payer = await newCustomer(platformA, 50_000);
    const bank = await usdBankAccount(platformA, payer.customerId);
    const created = await transferOut(platformA, out(payer.usd, bank, 12_550));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'PENDING',
      type: 'OUTGOING',
      customerId: payer.customerId,
      source: { sourceType: 'ACCOUNT', accountId: payer.usd, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: bank, currency: 'USD' },
      sentAmount: { amount: 12_550, currency: { code: 'USD' } },
      receivedAmount: { amount: 12_550, currency: { code: 'USD' } },
      exchangeRate: 1,
      fees: 0,
      counterpartyInformation: { FULL_NAME: 'Ada Lovelace' },
    });
    expect(created.body.reconciliationInstructions.reference).toMatch(/^CRD-/);
    expect(created.body).not.toHaveProperty('failureReason');
    const done = await settled(platformA, created.body.id);
    expect(done).toMatchObject({ id: created.body.id, status: 'COMPLETED' });
    expect(typeof done.settledAt).toBe('string');
    expect(await balances(platformA, payer)).toEqual([50_000 - 12_550, 50_000 - 12_550]);
  });

  it.each([
    ['002', 'insufficient funds at the bank', 'QUOTE_EXECUTION_FAILED'],
    ['003', 'a closed account', 'QUOTE_EXECUTION_FAILED'],
    ['004', 'a rejection by the bank', 'COUNTERPARTY_POST_TX_FAILED'],
  ])('suffix %s (%s) fails at once with %s and gives every cent back', async (suffix, _what, failureReason) => {
    const payer = await newCustomer(platformA, 10_000);
    const bank = await usdBankAccount(platformA, payer.customerId, suffix);
    const created = await transferOut(platformA, out(payer.usd, bank, 9_999));
    expect(created.status).toBe(201);
    const done = await settled(platformA, created.body.id);
    expect(done).toMatchObject({ status: 'FAILED', failureReason });
    expect(done).not.toHaveProperty('settledAt');
    expect(await balances(platformA, payer)).toEqual([10_000, 10_000]);
  });

  it('suffix 005 stays PROCESSING with the money held, then fails and releases it', async () => {
    const payer = await newCustomer(platformA, 10_000);
    const bank = await usdBankAccount(platformA, payer.customerId, '005');
    const created = await transferOut(platformA, out(payer.usd, bank, 4_000));
    expect(created.status).toBe(201);
    const waiting = await eventually(
      async () => (await api.call('GET', `/transactions/${created.body.id}`, { auth: platformA })).body as TransactionWire,
      (transaction) => transaction.status !== 'PENDING',
    );
    expect(waiting.status).toBe('PROCESSING');
    // Held: not available, still in the total.
    expect(await balances(platformA, payer)).toEqual([6_000, 10_000]);
    const done = await settled(platformA, created.body.id);
    expect(done).toMatchObject({ status: 'FAILED', failureReason: 'COUNTERPARTY_POST_TX_FAILED' });
    expect(await balances(platformA, payer)).toEqual([10_000, 10_000]);
  });

  it('without an amount moves the whole available balance, not what is held; a retry under the key answers that same transfer', async () => {
    const payer = await newCustomer(platformA, 10_000);
    const bank = await usdBankAccount(platformA, payer.customerId);
    const pendingBank = await usdBankAccount(platformA, payer.customerId, '005');
    const held = await transferOut(platformA, out(payer.usd, pendingBank, 2_500));
    expect(held.status).toBe(201);
    expect(await balances(platformA, payer)).toEqual([7_500, 10_000]);
    const whole = await transferOut(platformA, { source: { accountId: payer.usd }, destination: { accountId: bank } }, 'whole-balance-1');
    expect(whole.status).toBe(201);
    expect(whole.body).toMatchObject({ sentAmount: { amount: 7_500 }, receivedAmount: { amount: 7_500 } });
    expect((await settled(platformA, whole.body.id)).status).toBe('COMPLETED');
    const retried = await transferOut(platformA, { source: { accountId: payer.usd }, destination: { accountId: bank } }, 'whole-balance-1');
    expect([retried.status, retried.body.id, retried.body.sentAmount.amount]).toEqual([201, whole.body.id, 7_500]);
    const differentUnderKey = await transferOut(platformA, out(payer.usd, bank, 7_500), 'whole-balance-1');
    expect(differentUnderKey.status).toBe(409);
  });

  it('without an amount on an account with nothing available is a 400 saying how to fund it, never a zero-amount transfer', async () => {
    const payer = await newCustomer(platformA);
    const bank = await usdBankAccount(platformA, payer.customerId);
    const before = await transactionCount(platformA);
    const refused = await transferOut(platformA, { source: { accountId: payer.usd }, destination: { accountId: bank } });
    expect(refused.body).toMatchObject({
      status: 400,
      code: 'INVALID_AMOUNT',
      details: { field: 'amount', reason: 'NO_AVAILABLE_BALANCE', accountId: payer.usd },
    });
    expect(refused.body.message).toContain('whole available balance');
    expect(refused.body.message).toContain('Fund the account first');
    expect(await transactionCount(platformA)).toBe(before);
    expect(await balances(platformA, payer)).toEqual([0, 0]);
  });

  it('refuses more than the available balance with a 400 (reason INSUFFICIENT_FUNDS), creating nothing', async () => {
    const payer = await newCustomer(platformA, 1_000);
    const bank = await usdBankAccount(platformA, payer.customerId);
    const before = await transactionCount(platformA);
    const refused = await transferOut(platformA, out(payer.usd, bank, 1_001));
    expect(refused.body).toMatchObject({
      status: 400,
      code: 'INVALID_AMOUNT',
      details: { reason: 'INSUFFICIENT_FUNDS', available: '1000', requested: '1001' },
    });
    expect(refused.body.message).toContain('1000');
    expect(fieldsOf(refused.body)).toContain('amount');
    expect(await transactionCount(platformA)).toBe(before);
    expect(await balances(platformA, payer)).toEqual([1_000, 1_000]);
    // The exact balance goes through.
    const exact = await transferOut(platformA, out(payer.usd, bank, 1_000));
    expect((await settled(platformA, exact.body.id)).status).toBe('COMPLETED');
    expect(await balances(platformA, payer)).toEqual([0, 0]);
  });

  it('moves money once for a retried request under the same Idempotency-Key', async () => {
    const payer = await newCustomer(platformA, 10_000);
    const bank = await usdBankAccount(platformA, payer.customerId);
    const key = newUuid();
    const first = await transferOut(platformA, out(payer.usd, bank, 3_000), key);
    const again = await transferOut(platformA, out(payer.usd, bank, 3_000), key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    await settled(platformA, first.body.id);
    expect(await balances(platformA, payer)).toEqual([7_000, 7_000]);
  });

  it('moves money once when requests under one Idempotency-Key race through the gateway', async () => {
    const payer = await newCustomer(platformA, 10_000);
    const bank = await usdBankAccount(platformA, payer.customerId);
    const key = newUuid();
    const replies = await Promise.all(Array.from({ length: 6 }, () => transferOut(platformA, out(payer.usd, bank, 2_500), key)));
    const created = replies.filter((reply) => reply.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    // The others were told the first is still running (409), never a second transfer.
    expect(replies.filter((reply) => reply.status !== 201).map((reply) => reply.body.code)).toEqual(
      Array(6 - created.length).fill('CONFLICT'),
    );
    const ids = new Set(created.map((reply) => reply.body.id as string));
    expect(ids.size).toBe(1);
    await settled(platformA, [...ids][0] ?? '');
    expect(await balances(platformA, payer)).toEqual([7_500, 7_500]);
  });

  it('moves money once when commands with one key race straight at the payments service (no gateway record)', async () => {
    const payer = await newCustomer(platformA, 10_000);
    const bank = await usdBankAccount(platformA, payer.customerId);
    natsContext ??= await NestFactory.createApplicationContext(
      MessagingModule.forRoot({
        natsUrl: stack.bus.url,
        natsAuth: stack.bus.harness,
        subjectPrefix: stack.subjectPrefix,
        name: 'e2e-transfers',
      }),
      { logger: ['error'] },
    );
    await natsContext.init();
    const client = natsContext.get(ServiceClient);
    const context = (): RequestContext => ({
      platformId: platformAId,
      actor: { kind: 'system', name: 'e2e' },
      requestId: newUuid(),
      correlationId: newUuid(),
    });
    const data: TransferOutData = {
      source: { accountId: payer.usd },
      destination: { accountId: bank },
      amount: '4000',
      idempotencyKey: newUuid(),
    };
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        client.request<TransactionWire>(subjects.payments.transfer.out, data, { context: context(), timeoutMs: 20_000 }),
      ),
    );
    const ids = new Set(replies.map((reply) => reply.id));
    expect(ids.size).toBe(1);
    await settled(platformA, [...ids][0] ?? '');
    expect(await balances(platformA, payer)).toEqual([6_000, 6_000]);
    // The same key with a different request is refused, and moves nothing.
    const other = await client
      .request(subjects.payments.transfer.out, { ...data, amount: '10' }, { context: context(), timeoutMs: 20_000 })
      .catch((error: { code?: string }) => error);
    expect((other as { code?: string }).code).toBe('CONFLICT');
    expect(await balances(platformA, payer)).toEqual([6_000, 6_000]);
  });
});

describe('bad transfer input', () => {
  let payer: Customer;
  let bank: string;
  let euros: string;
  let strangerAccount: string;
  let strangerBank: string;

  beforeAll(async () => {
    payer = await newCustomer(platformA, 5_000);
    bank = await usdBankAccount(platformA, payer.customerId);
    euros = await euroBankAccount(platformA, payer.customerId);
    const stranger = await newCustomer(platformB, 5_000);
    strangerAccount = stranger.usd;
    strangerBank = await usdBankAccount(platformB, stranger.customerId);
  }, 60_000);

  const cases: [string, number, string, string, () => unknown][] = [
    ['a negative amount', 400, 'INVALID_INPUT', 'amount', () => out(payer.usd, bank, -1)],
    ['a zero amount', 400, 'INVALID_INPUT', 'amount', () => out(payer.usd, bank, 0)],
    ['a fractional amount', 400, 'INVALID_INPUT', 'amount', () => out(payer.usd, bank, 1.5)],
    ['a huge amount', 400, 'INVALID_INPUT', 'amount', () => out(payer.usd, bank, 1e20)],
    ['an amount as text', 400, 'INVALID_INPUT', 'amount', () => out(payer.usd, bank, '100')],
    [
      'a currency member (none exists: the accounts decide it)',
      400,
      'INVALID_INPUT',
      'currency',
      () => ({ ...out(payer.usd, bank, 100), currency: 'XYZ' }),
    ],
    ['an external account in another currency', 400, 'INVALID_CURRENCY', 'destination.accountId', () => out(payer.usd, euros, 100)],
    [
      'a source that is not an object',
      400,
      'INVALID_INPUT',
      'source',
      () => ({ ...out(payer.usd, bank, 100), source: 'InternalAccount:x' }),
    ],
    ['a numeric account id', 400, 'INVALID_INPUT', 'source.accountId', () => ({ ...out(payer.usd, bank, 100), source: { accountId: 42 } })],
    ['no destination', 400, 'INVALID_INPUT', 'destination', () => ({ source: { accountId: payer.usd }, amount: 100 })],
    [
      'an unknown paymentRail',
      400,
      'INVALID_INPUT',
      'destination.paymentRail',
      () => ({ ...out(payer.usd, bank, 100), destination: { accountId: bank, paymentRail: 'CARRIER_PIGEON' } }),
    ],
    ['a malformed source id', 400, 'INVALID_INPUT', 'source.accountId', () => out('InternalAccount:nope', bank, 100)],
    ['an external account as source', 400, 'INVALID_INPUT', 'source.accountId', () => out(bank, bank, 100)],
    ['an internal account as destination', 400, 'INVALID_INPUT', 'destination.accountId', () => out(payer.usd, payer.eur, 100)],
    ['an unknown source account', 404, 'REFERENCE_NOT_FOUND', 'source.accountId', () => out(`InternalAccount:${newUuid()}`, bank, 100)],
    [
      'an unknown destination account',
      404,
      'REFERENCE_NOT_FOUND',
      'destination.accountId',
      () => out(payer.usd, `ExternalAccount:${newUuid()}`, 100),
    ],
    ['another platform’s source account', 404, 'REFERENCE_NOT_FOUND', 'source.accountId', () => out(strangerAccount, bank, 100)],
    [
      'another platform’s destination account',
      404,
      'REFERENCE_NOT_FOUND',
      'destination.accountId',
      () => out(payer.usd, strangerBank, 100),
    ],
  ];

  it.each(cases)('transfer-out refuses %s: %i %s naming %s, moving nothing', async (_name, status, code, field, body) => {
    const before = await transactionCount(platformA);
    const refused = await transferOut(platformA, body());
    expect(refused.body).toMatchObject({ status, code });
    expect(fieldsOf(refused.body)).toContain(field);
    expect(await transactionCount(platformA)).toBe(before);
    expect(await balances(platformA, payer)).toEqual([5_000, 5_000]);
  });

  it('refuses a transfer to another customer’s bank account of the same platform', async () => {
    const other = await newCustomer(platformA);
    const theirs = await usdBankAccount(platformA, other.customerId);
    const refused = await transferOut(platformA, out(payer.usd, theirs, 100));
    expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'destination.accountId' } });
    expect(await balances(platformA, payer)).toEqual([5_000, 5_000]);
  });

  it('keeps each platform’s transfers invisible to the other', async () => {
    const created = await transferOut(platformA, out(payer.usd, bank, 100));
    expect(created.status).toBe(201);
    expect((await api.call('GET', `/transactions/${created.body.id}`, { auth: platformB })).body).toMatchObject({
      status: 404,
      code: 'TRANSACTION_NOT_FOUND',
    });
    expect((await api.call('POST', `/transactions/${created.body.id}/confirm`, { auth: platformB })).body).toMatchObject({
      status: 404,
      code: 'TRANSACTION_NOT_FOUND',
    });
    const listed = (await api.call('GET', `/transactions?accountIdentifier=${encodeURIComponent(payer.usd)}`, { auth: platformB })).body;
    expect(listed).toMatchObject({ data: [], totalCount: 0 });
    await settled(platformA, created.body.id);
    expect(
      await eventually(
        () => balances(platformA, payer),
        (pair) => pair[0] === 4_900,
      ),
    ).toEqual([4_900, 4_900]);
  });
});

describe('POST /transfer-in', () => {
  it('pulls from an ACH account: PENDING, then COMPLETED and credited only then', async () => {
    const payee = await newCustomer(platformA);
    const bank = await usdBankAccount(platformA, payee.customerId);
    const created = await transferIn(platformA, { source: { accountId: bank }, destination: { accountId: payee.usd }, amount: 7_700 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'PENDING',
      type: 'INCOMING',
      customerId: payee.customerId,
      source: { sourceType: 'ACCOUNT', accountId: bank, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: payee.usd, currency: 'USD' },
      receivedAmount: { amount: 7_700, currency: { code: 'USD' } },
    });
    expect(created.body).not.toHaveProperty('sentAmount');
    expect((await settled(platformA, created.body.id)).status).toBe('COMPLETED');
    expect(await balances(platformA, payee)).toEqual([7_700, 7_700]);
  });

  it('a failed pull (suffix 002) credits nothing', async () => {
    const payee = await newCustomer(platformA);
    const bank = await usdBankAccount(platformA, payee.customerId, '002');
    const created = await transferIn(platformA, { source: { accountId: bank }, destination: { accountId: payee.usd }, amount: 500 });
    expect(await settled(platformA, created.body.id)).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
    expect(await balances(platformA, payee)).toEqual([0, 0]);
  });

  it('refuses an account that cannot be pulled from with a 400 pointing at the internal account’s payment instructions', async () => {
    const payee = await newCustomer(platformA);
    const euros = await euroBankAccount(platformA, payee.customerId);
    const before = await transactionCount(platformA);
    const refused = await transferIn(platformA, { source: { accountId: euros }, destination: { accountId: payee.eur }, amount: 500 });
    expect(refused.body).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      details: { field: 'source.accountId', reason: 'NOT_PULLABLE', internalAccountId: payee.eur },
    });
    expect(refused.body.message).toContain('fundingPaymentInstructions');
    expect(refused.body.details.fundingPaymentInstructions).toEqual(
      (await account(platformA, payee.customerId, payee.eur)).fundingPaymentInstructions,
    );
    expect(await transactionCount(platformA)).toBe(before);
  });

  it('refuses an unknown source account with a 404 and a foreign destination with a 404, crediting nothing', async () => {
    const payee = await newCustomer(platformA);
    const unknown = await transferIn(platformA, {
      source: { accountId: `ExternalAccount:${newUuid()}` },
      destination: { accountId: payee.usd },
      amount: 100,
    });
    expect(unknown.body).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND', details: { field: 'source.accountId' } });
    const stranger = await newCustomer(platformB);
    const strangerBank = await usdBankAccount(platformB, stranger.customerId);
    const foreign = await transferIn(platformB, {
      source: { accountId: strangerBank },
      destination: { accountId: payee.usd },
      amount: 100,
    });
    expect(foreign.body).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND', details: { field: 'destination.accountId' } });
    expect(await balances(platformA, payee)).toEqual([0, 0]);
  });

  it('refuses a transfer-in without an amount, saying why (the external balance is unknown), crediting nothing', async () => {
    const payee = await newCustomer(platformA);
    const bank = await usdBankAccount(platformA, payee.customerId);
    const before = await transactionCount(platformA);
    const refused = await transferIn(platformA, { source: { accountId: bank }, destination: { accountId: payee.usd } });
    expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'amount' } });
    expect(refused.body.message).toContain('amount is required on a transfer-in');
    expect(await transactionCount(platformA)).toBe(before);
  });

  it.each([
    ['a zero amount', 0, 'amount'],
    ['a fractional amount', 0.5, 'amount'],
  ])('refuses %s', async (_name, amount, field) => {
    const payee = await newCustomer(platformA);
    const bank = await usdBankAccount(platformA, payee.customerId);
    const refused = await transferIn(platformA, { source: { accountId: bank }, destination: { accountId: payee.usd }, amount });
    expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(fieldsOf(refused.body)).toContain(field);
    expect(await balances(platformA, payee)).toEqual([0, 0]);
  });
});

describe('GET /transactions filters and paging', () => {
  let payer: Customer;
  let bankOne: string;
  let bankTwo: string;
  let ids: { outOne: string; outTwo: string; outOther: string; inOne: string };

  beforeAll(async () => {
    payer = await newCustomer(platformA, 20_000);
    bankOne = await usdBankAccount(platformA, payer.customerId);
    bankTwo = await usdBankAccount(platformA, payer.customerId);
    const outOne = (await transferOut(platformA, out(payer.usd, bankOne, 100))).body.id as string;
    const outTwo = (await transferOut(platformA, out(payer.usd, bankOne, 200))).body.id as string;
    const outOther = (await transferOut(platformA, out(payer.usd, bankTwo, 300))).body.id as string;
    const inOne = (await transferIn(platformA, { source: { accountId: bankOne }, destination: { accountId: payer.usd }, amount: 400 })).body
      .id as string;
    ids = { outOne, outTwo, outOther, inOne };
    for (const id of Object.values(ids)) await settled(platformA, id);
  }, 60_000);

  const listed = async (query: string): Promise<string[]> => {
    const reply = await api.call('GET', `/transactions?${query}`, { auth: platformA });
    expect(reply.status).toBe(200);
    return (reply.body.data as TransactionWire[]).map((transaction) => transaction.id).sort();
  };

  it('filters on either side, the sender, the receiver, the type and the reference', async () => {
    const all = Object.values(ids).sort();
    expect(await listed(`accountIdentifier=${encodeURIComponent(payer.usd)}`)).toEqual(all);
    expect(await listed(`senderAccountIdentifier=${encodeURIComponent(payer.usd)}`)).toEqual([ids.outOne, ids.outTwo, ids.outOther].sort());
    expect(await listed(`receiverAccountIdentifier=${encodeURIComponent(bankOne)}`)).toEqual([ids.outOne, ids.outTwo].sort());
    expect(await listed(`accountIdentifier=${encodeURIComponent(bankOne)}`)).toEqual([ids.outOne, ids.outTwo, ids.inOne].sort());
    expect(await listed(`accountIdentifier=${encodeURIComponent(payer.usd)}&type=INCOMING`)).toEqual([ids.inOne]);
    expect(
      await listed(
        `accountIdentifier=${encodeURIComponent(payer.usd)}&customerId=${encodeURIComponent(payer.customerId)}&status=COMPLETED`,
      ),
    ).toEqual(all);
    const reference =
      ((await api.call('GET', `/transactions/${ids.outTwo}`, { auth: platformA })).body as TransactionWire).reconciliationInstructions
        ?.reference ?? '';
    expect(await listed(`reference=${encodeURIComponent(reference)}`)).toEqual([ids.outTwo]);
    expect(await listed('reference=CRD-NOSUCHTHING')).toEqual([]);
  });

  it('pages by keyset in both orders, each row once', async () => {
    const walk = async (sortOrder: string): Promise<string[]> => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const reply = await api.call(
          'GET',
          `/transactions?accountIdentifier=${encodeURIComponent(payer.usd)}&limit=1&sortOrder=${sortOrder}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { auth: platformA },
        );
        expect(reply.body.totalCount).toBe(4);
        seen.push(...(reply.body.data as TransactionWire[]).map((transaction) => transaction.id));
        if (!reply.body.hasMore) break;
        cursor = reply.body.nextCursor as string;
      }
      return seen;
    };
    const ascending = await walk('asc');
    expect(ascending).toEqual([ids.outOne, ids.outTwo, ids.outOther, ids.inOne]);
    expect(await walk('desc')).toEqual([...ascending].reverse());
  });

  it.each(['accountIdentifier=', 'reference=' + 'x'.repeat(256), 'senderAccountIdentifier=a&senderAccountIdentifier=b'])(
    'refuses ?%s with a 400',
    async (query) => {
      const reply = await api.call('GET', `/transactions?${query}`, { auth: platformA });
      expect(reply.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    },
  );
});

describe('POST /transactions/{id}/confirm', () => {
  it('records the receipt time (now when left out), updates it when confirmed again, and refuses bad input', async () => {
    const payer = await newCustomer(platformA, 1_000);
    const bank = await usdBankAccount(platformA, payer.customerId);
    const created = await transferOut(platformA, out(payer.usd, bank, 100));
    await settled(platformA, created.body.id);
    const before = Date.now();
    const first = await api.call('POST', `/transactions/${created.body.id}/confirm`, { auth: platformA });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: created.body.id, status: 'COMPLETED' });
    expect(Date.parse(first.body.receiptDeliveryConfirmedAt)).toBeGreaterThanOrEqual(before - 1_000);
    const second = await api.call('POST', `/transactions/${created.body.id}/confirm`, {
      auth: platformA,
      body: { receiptDeliveryConfirmedAt: '2026-01-02T03:04:05Z' },
    });
    expect(second.body.receiptDeliveryConfirmedAt).toBe('2026-01-02T03:04:05.000Z');
    expect((await api.call('GET', `/transactions/${created.body.id}`, { auth: platformA })).body.receiptDeliveryConfirmedAt).toBe(
      '2026-01-02T03:04:05.000Z',
    );
    const bad = await api.call('POST', `/transactions/${created.body.id}/confirm`, {
      auth: platformA,
      body: { receiptDeliveryConfirmedAt: 'yesterday' },
    });
    expect(bad.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(fieldsOf(bad.body)).toContain('receiptDeliveryConfirmedAt');
    expect((await api.call('POST', '/transactions/Transaction:nope/confirm', { auth: platformA })).body).toMatchObject({
      status: 404,
      code: 'TRANSACTION_NOT_FOUND',
    });
    expect((await api.call('POST', `/transactions/Transaction:${newUuid()}/confirm`, { auth: platformA })).body).toMatchObject({
      status: 404,
      code: 'TRANSACTION_NOT_FOUND',
    });
  });
});

describe('a platform’s own transfer', () => {
  it('moves money from the platform’s account to its own bank account, with the platform as the customer', async () => {
    const platformAccounts = (await api.call('GET', '/platform/internal-accounts?currency=USD', { auth: platformA })).body
      .data as Account[];
    const usd = platformAccounts[0]?.id ?? '';
    expect((await api.call('POST', `/sandbox/internal-accounts/${usd}/fund`, { auth: platformA, body: { amount: 9_000 } })).status).toBe(
      200,
    );
    accountCount += 1;
    const bank = await api.call('POST', '/platform/external-accounts', {
      auth: platformA,
      body: {
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: `5${String(accountCount).padStart(7, '0')}0001`,
          routingNumber: '011000015',
          beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Platform A Inc' },
        },
      },
    });
    expect(bank.status).toBe(201);
    const created = await transferOut(platformA, out(usd, bank.body.id, 2_500));
    expect(created.body).toMatchObject({
      status: 'PENDING',
      customerId: platformAId,
      platformCustomerId: platformAId,
      counterpartyInformation: { FULL_NAME: 'Platform A Inc' },
    });
    expect((await settled(platformA, created.body.id)).status).toBe('COMPLETED');
    const after = (await api.call('GET', '/platform/internal-accounts?currency=USD', { auth: platformA })).body.data as Account[];
    expect(after.find((account) => account.id === usd)?.balance.amount).toBe((platformAccounts[0]?.balance.amount ?? 0) + 9_000 - 2_500);
    // "To filter to transactions made on behalf of the platform, specify the platform ID as the customer ID."
    const mine = await api.call('GET', `/transactions?customerId=${encodeURIComponent(platformAId)}`, { auth: platformA });
    expect(mine.body.data.map((transaction: TransactionWire) => transaction.id)).toContain(created.body.id);
    // A customer's bank account is not the platform's to pay out to.
    const customer = await newCustomer(platformA);
    const theirs = await usdBankAccount(platformA, customer.customerId);
    expect((await transferOut(platformA, out(usd, theirs, 100))).body).toMatchObject({
      status: 400,
      details: { field: 'destination.accountId' },
    });
  });
});

describe('the ledger after all transfers', () => {
  it('balances: per currency the postings sum to zero and every balance is the sum of its postings', async () => {
    const summary = await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
    expect(summary.postings).toBeGreaterThan(0);
  });
});
