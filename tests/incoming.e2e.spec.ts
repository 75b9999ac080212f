// Incoming UMA payments end to end with every app running: POST /sandbox/uma/receive creates an
// INCOMING transaction whose INCOMING_PAYMENT.PENDING webhook is the platform's approval hook,
// answered by a local receiver with each of the reference's answers (200, 403, 422, 202, an
// error); approve and reject after a deferral, the approval window running out, the deposit into
// the default UMA deposit account or the primary internal account, balances credited only on
// success, bad input refused with nothing created, tenancy, and the ledger balanced after each.
import { assertLedgerConserved, eventually, waitUntil } from '@corridor/testing';
import { createApi, type Credentials, type Reply } from './support/api';
import { forgetIdempotencyRecord } from './support/idempotency';
import { type Stack, startStack } from './support/stack';
import { type Receiver, type Received, startReceiver } from './support/webhook-receiver';

type Account = { id: string; balance: { amount: number; currency: { code: string } } };
type Customer = { customerId: string; platformCustomerId: string; umaAddress: string; usd: string };

const APPROVAL_WINDOW_SECONDS = 5;
const SENDER = '$success.eur@sandbox.uma.money';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
let receiver: Receiver;
/** How the receiver answers the approval hook of a payment, by its received amount. */
const answers = new Map<number, number | { status: number; body: unknown }>();

let customerCount = 0;
const newCustomer = async (auth: Credentials): Promise<Customer> => {
  customerCount += 1;
  const umaAddress = `$incoming${customerCount}@corridor.uma.money`;
  const created = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: `Payee ${customerCount}`, umaAddress, currencies: ['USD', 'EUR'] },
  });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  const accounts = await eventually(
    async () =>
      (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth })).body.data as Account[],
    (list) => list.length >= 2,
  );
  const usd = accounts.find((account) => account.balance.currency.code === 'USD')?.id ?? '';
  return { customerId, platformCustomerId: created.body.platformCustomerId, umaAddress, usd };
};

const balanceOf = async (auth: Credentials, customer: Customer): Promise<number> => {
  const list = (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.customerId)}`, { auth })).body
    .data as Account[];
  return list.find((account) => account.id === customer.usd)?.balance.amount ?? -1;
};

const receive = (auth: Credentials, body: Record<string, unknown>) => api.call('POST', '/sandbox/uma/receive', { auth, body });
const getTransaction = (auth: Credentials, id: string) => api.call('GET', `/transactions/${id}`, { auth });
const statusOf = async (id: string): Promise<string> => (await getTransaction(platformA, id)).body.status as string;
const untilStatus = async (id: string, wanted: string[]): Promise<Reply> => {
  await waitUntil(`transaction ${id} to reach ${wanted.join(' or ')}`, async () => wanted.includes(await statusOf(id)), 30_000);
  return getTransaction(platformA, id);
};
const webhooksOf = (id: string): Received[] => receiver.received.filter((item) => item.body.data?.id === id);
const transactionCount = async (auth: Credentials): Promise<number> =>
  (await api.call('GET', '/transactions?limit=1&type=INCOMING', { auth })).body.totalCount as number;

beforeAll(async () => {
  stack = await startStack({
    appEnv: {
      payments: {
        INCOMING_APPROVAL_WINDOW_SECONDS: String(APPROVAL_WINDOW_SECONDS),
        INCOMING_WEBHOOK_ANSWER_SECONDS: '20',
        INCOMING_SWEEP_MS: '200',
      },
    },
  });
  api = createApi(stack, 'incoming');
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
  receiver.respond = (request) =>
    request.body.type === 'INCOMING_PAYMENT.PENDING' ? (answers.get(request.body.data.receivedAmount.amount) ?? 200) : 200;
  expect((await api.call('PATCH', '/config', { auth: platformA, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await receiver?.close();
  await stack?.close();
});

afterEach(async () => {
  // The books balance after every scenario. PostgreSQL is shared with other suites, so a refused
  // connection (53300, too many clients) is waited out; a discrepancy is never retried.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '53300' || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
});

describe('POST /sandbox/uma/receive with an approving platform', () => {
  it('creates a PENDING INCOMING transaction with fees and rate details, then COMPLETED with the customer credited', async () => {
    const customer = await newCustomer(platformA);
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1000,
    });
    expect(reply.status).toBe(200);
    // 1 000 cents received; the sender's payment converts to the least G with G − 10 − ceil(0.3 % G) ≥ 1 000: G = 1 014, fees 10 + 4.
    expect(reply.body).toMatchObject({
      type: 'INCOMING',
      status: 'PENDING',
      customerId: customer.customerId,
      platformCustomerId: customer.platformCustomerId,
      destination: { destinationType: 'ACCOUNT', accountId: customer.usd, currency: 'USD' },
      receivedAmount: { amount: 1000, currency: { code: 'USD' } },
      fees: 14,
      rateDetails: { serviceApiFixedFee: 10, serviceApiVariableFeeRate: 0.003, serviceApiVariableFeeAmount: 4 },
      counterpartyInformation: { FULL_NAME: 'Sandbox Sender', BIRTH_DATE: '1985-06-15', NATIONALITY: 'US' },
      reconciliationInstructions: { reference: expect.stringMatching(/^UMA-[0-9A-F]{12}$/) },
    });
    expect(reply.body.rateDetails.serviceApiMultiplier).toBeGreaterThan(0);
    const id = reply.body.id as string;
    const done = await untilStatus(id, ['COMPLETED', 'FAILED', 'REJECTED']);
    expect(done.body).toMatchObject({ status: 'COMPLETED', settledAt: expect.any(String) });
    expect(done.body.failureReason).toBeUndefined();
    expect(await balanceOf(platformA, customer)).toBe(1000);
    await receiver.waitFor(
      () => webhooksOf(id).some((item) => item.body.type === 'INCOMING_PAYMENT.COMPLETED'),
      'INCOMING_PAYMENT.COMPLETED',
    );
    const hooks = webhooksOf(id);
    expect(hooks.map((item) => [item.body.type, item.body.data.status])).toEqual([
      ['INCOMING_PAYMENT.PENDING', 'PENDING'],
      ['INCOMING_PAYMENT.COMPLETED', 'COMPLETED'],
    ]);
    for (const hook of hooks) api.conformance.checkWebhook(hook.body);
    expect(hooks[0]!.body.data.requestedReceiverCustomerInfoFields).toEqual([]);
    // The list shows it with the other INCOMING payments.
    const listed = await api.call('GET', `/transactions?type=INCOMING&customerId=${encodeURIComponent(customer.customerId)}`, {
      auth: platformA,
    });
    expect(listed.body.data.map((item: { id: string }) => item.id)).toEqual([id]);
  });

  it('finds the receiver by UMA address and deposits into the default UMA deposit external account, leaving the internal balance alone', async () => {
    const customer = await newCustomer(platformA);
    const external = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: {
        customerId: customer.customerId,
        currency: 'USD',
        defaultUmaDepositAccount: true,
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: `0001${String(customerCount).padStart(5, '0')}100`,
          routingNumber: '011000015',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Payee' },
        },
      },
    });
    expect(external.status).toBe(201);
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      receiverUmaAddress: customer.umaAddress,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 2500,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ customerId: customer.customerId, destination: { accountId: external.body.id, currency: 'USD' } });
    const done = await untilStatus(reply.body.id, ['COMPLETED', 'FAILED', 'REJECTED']);
    expect(done.body.status).toBe('COMPLETED');
    expect(await balanceOf(platformA, customer)).toBe(0);
    // The same customer's payment in a currency the default account does not hold is refused.
    const other = await receive(platformA, {
      senderUmaAddress: SENDER,
      receiverUmaAddress: customer.umaAddress,
      receivingCurrencyCode: 'EUR',
      receivingCurrencyAmount: 2500,
    });
    expect(other.body).toMatchObject({ status: 400, code: 'INVALID_CURRENCY', details: { field: 'receivingCurrencyCode' } });
  });

  it('refunds the sender when the rail refuses the payout to the default deposit account (number ending 004): REFUNDED, OFFRAMP_FAILED', async () => {
    const customer = await newCustomer(platformA);
    const external = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: {
        customerId: customer.customerId,
        currency: 'USD',
        defaultUmaDepositAccount: true,
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: `0001${String(customerCount).padStart(5, '0')}004`,
          routingNumber: '011000015',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Payee' },
        },
      },
    });
    expect(external.status).toBe(201);
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 2600,
    });
    expect(reply.status).toBe(200);
    const done = await untilStatus(reply.body.id, ['COMPLETED', 'FAILED', 'REJECTED', 'REFUNDED']);
    expect(done.body).toMatchObject({ status: 'REFUNDED', failureReason: 'OFFRAMP_FAILED', destination: { accountId: external.body.id } });
    expect(done.body.settledAt).toBeUndefined();
    expect(await balanceOf(platformA, customer)).toBe(0);
    await receiver.waitFor(
      () => webhooksOf(reply.body.id).some((item) => item.body.type === 'INCOMING_PAYMENT.FAILED'),
      'INCOMING_PAYMENT.FAILED',
    );
    const failedHook = webhooksOf(reply.body.id).at(-1)!.body;
    expect(failedHook.data).toMatchObject({ status: 'REFUNDED', failureReason: 'OFFRAMP_FAILED' });
    api.conformance.checkWebhook(failedHook);
  });
});

describe('a retry whose first answer was lost', () => {
  it('answers with the payment the first attempt made; the customer is credited once', async () => {
    const customer = await newCustomer(platformA);
    const headers = { 'idempotency-key': `receive-lost-${customer.customerId}` };
    const body = { senderUmaAddress: SENDER, customerId: customer.customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 700 };
    const first = await api.call('POST', '/sandbox/uma/receive', { auth: platformA, body, headers });
    expect(first.status).toBe(200);
    const before = await transactionCount(platformA);
    await forgetIdempotencyRecord(stack, headers['idempotency-key']);
    const retry = await api.call('POST', '/sandbox/uma/receive', { auth: platformA, body, headers });
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(first.body.id);
    await untilStatus(first.body.id as string, ['COMPLETED']);
    expect(await transactionCount(platformA)).toBe(before);
    expect(await balanceOf(platformA, customer)).toBe(700);
  });
});

describe('the approval hook’s other answers', () => {
  it('403 rejects: REJECTED, nothing credited, INCOMING_PAYMENT.FAILED sent', async () => {
    const customer = await newCustomer(platformA);
    answers.set(1003, { status: 403, body: { code: 'FORBIDDEN', message: 'no', reason: 'RESTRICTED_JURISDICTION' } });
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1003,
    });
    const done = await untilStatus(reply.body.id, ['COMPLETED', 'FAILED', 'REJECTED']);
    expect(done.body.status).toBe('REJECTED');
    expect(await balanceOf(platformA, customer)).toBe(0);
    await receiver.waitFor(
      () => webhooksOf(reply.body.id).some((item) => item.body.type === 'INCOMING_PAYMENT.FAILED'),
      'INCOMING_PAYMENT.FAILED',
    );
    api.conformance.checkWebhook(webhooksOf(reply.body.id).at(-1)!.body);
  });

  it('422 asks for more sender data: the sender supplies it, and the platform approves with receiver data', async () => {
    const customer = await newCustomer(platformA);
    answers.set(1004, { status: 422, body: { code: 'MISSING_DATA', message: 'need the tax id', requiredFields: ['TAX_ID'] } });
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1004,
    });
    const id = reply.body.id as string;
    const pending = await eventually(
      () => getTransaction(platformA, id),
      (read) => read.body.counterpartyInformation?.TAX_ID !== undefined,
    );
    expect(pending.body).toMatchObject({
      status: 'PENDING',
      counterpartyInformation: { TAX_ID: '123-45-6789', FULL_NAME: 'Sandbox Sender' },
    });
    const approved = await api.call('POST', `/transactions/${id}/approve`, {
      auth: platformA,
      body: { receiverCustomerInfo: { FULL_NAME: 'Payee' } },
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id, status: 'COMPLETED' });
    expect(await balanceOf(platformA, customer)).toBe(1004);
  });

  it('422 asking for data the sender does not have fails MISSING_MANDATORY_PAYEE_DATA', async () => {
    const customer = await newCustomer(platformA);
    answers.set(1005, { status: 422, body: { code: 'MISSING_DATA', message: 'need it', requiredFields: ['REGISTRATION_NUMBER'] } });
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1005,
    });
    const done = await untilStatus(reply.body.id, ['COMPLETED', 'FAILED', 'REJECTED']);
    expect(done.body).toMatchObject({ status: 'FAILED', failureReason: 'MISSING_MANDATORY_PAYEE_DATA' });
    expect(await balanceOf(platformA, customer)).toBe(0);
  });

  it('202 then approve: COMPLETED and credited; a second approve is 409', async () => {
    const customer = await newCustomer(platformA);
    answers.set(1006, 202);
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1006,
    });
    const id = reply.body.id as string;
    // Approving before the hook was answered is not allowed: the payment is not yet waiting for the platform.
    await receiver.waitFor(() => webhooksOf(id).length > 0, 'the approval hook');
    const approved = await eventually(
      () => api.call('POST', `/transactions/${id}/approve`, { auth: platformA }),
      (read) => read.status === 200,
    );
    expect(approved.body).toMatchObject({ id, status: 'COMPLETED' });
    expect(await balanceOf(platformA, customer)).toBe(1006);
    const again = await api.call('POST', `/transactions/${id}/approve`, { auth: platformA });
    expect(again.body).toMatchObject({ status: 409, code: 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL' });
    const reject = await api.call('POST', `/transactions/${id}/reject`, { auth: platformA, body: {} });
    expect(reject.body).toMatchObject({ status: 409, code: 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL' });
  });

  it('202 then reject: REJECTED with nothing credited', async () => {
    const customer = await newCustomer(platformA);
    answers.set(1007, 202);
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1007,
    });
    const id = reply.body.id as string;
    const rejected = await eventually(
      () => api.call('POST', `/transactions/${id}/reject`, { auth: platformA, body: { reason: 'RESTRICTED_JURISDICTION' } }),
      (read) => read.status === 200,
    );
    expect(rejected.body).toMatchObject({ id, status: 'REJECTED' });
    expect(await balanceOf(platformA, customer)).toBe(0);
    expect((await api.call('POST', `/transactions/${id}/approve`, { auth: platformA })).body).toMatchObject({
      status: 409,
      code: 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    });
  });

  it('202 then silence: FAILED PAYMENT_APPROVAL_TIMED_OUT once the window passes, and approving then is 409', async () => {
    const customer = await newCustomer(platformA);
    answers.set(1008, 202);
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1008,
    });
    const done = await untilStatus(reply.body.id, ['COMPLETED', 'FAILED', 'REJECTED']);
    expect(done.body).toMatchObject({ status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_TIMED_OUT' });
    expect((await api.call('POST', `/transactions/${reply.body.id}/approve`, { auth: platformA })).body).toMatchObject({
      status: 409,
      code: 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    });
    expect(await balanceOf(platformA, customer)).toBe(0);
    await receiver.waitFor(
      () => webhooksOf(reply.body.id).some((item) => item.body.type === 'INCOMING_PAYMENT.FAILED'),
      'INCOMING_PAYMENT.FAILED',
    );
  });

  it('an error answer fails PAYMENT_APPROVAL_WEBHOOK_ERROR, and the hook is not retried', async () => {
    const customer = await newCustomer(platformA);
    answers.set(1009, 500);
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1009,
    });
    const done = await untilStatus(reply.body.id, ['COMPLETED', 'FAILED', 'REJECTED']);
    expect(done.body).toMatchObject({ status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR' });
    expect(await balanceOf(platformA, customer)).toBe(0);
    await receiver.waitFor(
      () => webhooksOf(reply.body.id).some((item) => item.body.type === 'INCOMING_PAYMENT.FAILED'),
      'INCOMING_PAYMENT.FAILED',
    );
    expect(webhooksOf(reply.body.id).filter((item) => item.body.type === 'INCOMING_PAYMENT.PENDING')).toHaveLength(1);
  });

  it('without a webhook endpoint nobody can be asked: the payment is approved and deposited at once, COMPLETED in the answer', async () => {
    const customer = await newCustomer(platformB);
    const reply = await receive(platformB, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1010,
    });
    expect(reply.status).toBe(200);
    const reconciliationInstructions = { reference: expect.stringMatching(/^UMA-/) };
    expect(reply.body).toMatchObject({ status: 'COMPLETED', settledAt: expect.any(String), reconciliationInstructions });
    expect(reply.body.failureReason).toBeUndefined();
    expect((await getTransaction(platformB, reply.body.id)).body).toMatchObject({ status: 'COMPLETED' });
    expect(await balanceOf(platformB, customer)).toBe(1010);
  });

  it('after the endpoint is cleared (PATCH /config with null) the same holds', async () => {
    const cleared = (await stack.createPlatform()).token as Credentials;
    expect((await api.call('PATCH', '/config', { auth: cleared, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
    expect((await api.call('PATCH', '/config', { auth: cleared, body: { webhookEndpoint: null } })).status).toBe(200);
    const customer = await newCustomer(cleared);
    const body = { senderUmaAddress: SENDER, customerId: customer.customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1012 };
    const reply = await receive(cleared, body);
    expect(reply.body).toMatchObject({ status: 'COMPLETED' });
    expect(await balanceOf(cleared, customer)).toBe(1012);
  });
});

describe('tenancy and the production guard', () => {
  it('another platform cannot see, approve or reject a payment (404), and receives nothing for another platform’s customer', async () => {
    const customer = await newCustomer(platformA);
    answers.set(1011, 202);
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1011,
    });
    const id = reply.body.id as string;
    expect((await getTransaction(platformB, id)).status).toBe(404);
    expect((await api.call('POST', `/transactions/${id}/approve`, { auth: platformB })).body).toMatchObject({
      status: 404,
      code: 'TRANSACTION_NOT_FOUND',
    });
    expect((await api.call('POST', `/transactions/${id}/reject`, { auth: platformB })).body).toMatchObject({
      status: 404,
      code: 'TRANSACTION_NOT_FOUND',
    });
    const stranger = await receive(platformB, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1000,
    });
    expect(stranger.body).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    const byAddress = await receive(platformB, {
      senderUmaAddress: SENDER,
      receiverUmaAddress: customer.umaAddress,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1000,
    });
    expect(byAddress.body).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    // The owner settles it; the stranger's attempts changed nothing.
    expect((await api.call('POST', `/transactions/${id}/reject`, { auth: platformA })).status).toBe(200);
  });

  it('a production token gets 403 from the simulator', async () => {
    const production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
    const reply = await receive(production, {
      senderUmaAddress: SENDER,
      customerId: 'Customer:019542f5-b3e7-1d02-0000-000000000001',
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1000,
    });
    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });
});

describe('bad input', () => {
  let customer: Customer;
  beforeAll(async () => {
    customer = await newCustomer(platformA);
  });

  const valid = () => ({
    senderUmaAddress: SENDER,
    customerId: customer.customerId,
    receivingCurrencyCode: 'USD',
    receivingCurrencyAmount: 1000,
  });
  const cases: [string, number, string, string, () => Record<string, unknown>][] = [
    [
      'a malformed sender address',
      400,
      'INVALID_UMA_ADDRESS',
      'senderUmaAddress',
      () => ({ ...valid(), senderUmaAddress: 'alice@example.com' }),
    ],
    [
      'a sender that is not a sandbox sender',
      400,
      'SENDER_NOT_ACCEPTED',
      'senderUmaAddress',
      () => ({ ...valid(), senderUmaAddress: '$alice@example.com' }),
    ],
    [
      'a sender failing compliance',
      400,
      'SENDER_NOT_ACCEPTED',
      'senderUmaAddress',
      () => ({ ...valid(), senderUmaAddress: '$fail.compliance.usd@sandbox.uma.money' }),
    ],
    [
      'a sender that does not exist',
      400,
      'SENDER_NOT_ACCEPTED',
      'senderUmaAddress',
      () => ({ ...valid(), senderUmaAddress: '$non.existent.usd@sandbox.uma.money' }),
    ],
    [
      'a malformed receiver address',
      400,
      'INVALID_UMA_ADDRESS',
      'receiverUmaAddress',
      () => ({ ...valid(), customerId: undefined, receiverUmaAddress: 'bob@@x' }),
    ],
    [
      'an unknown receiver address',
      404,
      'USER_NOT_FOUND',
      'receiverUmaAddress',
      () => ({ ...valid(), customerId: undefined, receiverUmaAddress: '$nobody@corridor.uma.money' }),
    ],
    [
      'an unknown customer',
      404,
      'USER_NOT_FOUND',
      'customerId',
      () => ({ ...valid(), customerId: 'Customer:019542f5-b3e7-1d02-0000-000000000001' }),
    ],
    [
      'a receiver address of someone else than customerId',
      400,
      'INVALID_INPUT',
      'receiverUmaAddress',
      () => ({ ...valid(), receiverUmaAddress: '$incoming1@corridor.uma.money' }),
    ],
    ['no receiver at all', 400, 'INVALID_INPUT', 'receiverUmaAddress', () => ({ ...valid(), customerId: undefined })],
    ['an unknown currency', 400, 'INVALID_CURRENCY', 'receivingCurrencyCode', () => ({ ...valid(), receivingCurrencyCode: 'XYZ' })],
    ['a currency in lower case', 400, 'INVALID_INPUT', 'receivingCurrencyCode', () => ({ ...valid(), receivingCurrencyCode: 'usd' })],
    [
      'a currency the customer holds no account in',
      400,
      'INVALID_CURRENCY',
      'receivingCurrencyCode',
      () => ({ ...valid(), receivingCurrencyCode: 'GBP' }),
    ],
    ['a zero amount', 400, 'INVALID_INPUT', 'receivingCurrencyAmount', () => ({ ...valid(), receivingCurrencyAmount: 0 })],
    ['a negative amount', 400, 'INVALID_INPUT', 'receivingCurrencyAmount', () => ({ ...valid(), receivingCurrencyAmount: -5 })],
    ['a fractional amount', 400, 'INVALID_INPUT', 'receivingCurrencyAmount', () => ({ ...valid(), receivingCurrencyAmount: 10.5 })],
    ['an amount as a string', 400, 'INVALID_INPUT', 'receivingCurrencyAmount', () => ({ ...valid(), receivingCurrencyAmount: '1000' })],
    [
      'an amount beyond a JSON number',
      400,
      'INVALID_INPUT',
      'receivingCurrencyAmount',
      () => ({ ...valid(), receivingCurrencyAmount: 1e20 }),
    ],
    [
      'an amount below the minimum',
      400,
      'AMOUNT_OUT_OF_RANGE',
      'receivingCurrencyAmount',
      () => ({ ...valid(), receivingCurrencyAmount: 99 }),
    ],
    [
      'an amount above the maximum',
      400,
      'AMOUNT_OUT_OF_RANGE',
      'receivingCurrencyAmount',
      () => ({ ...valid(), receivingCurrencyAmount: 1_000_000_001 }),
    ],
    ['an unknown member', 400, 'INVALID_INPUT', 'extra', () => ({ ...valid(), extra: 1 })],
  ];

  it.each(cases)('refuses %s with %i %s naming %s, creating nothing', async (_name, status, code, field, body) => {
    const before = await transactionCount(platformA);
    const reply = await receive(platformA, body());
    expect(reply.status).toBe(status);
    expect(reply.body).toMatchObject({ status, code });
    const fields = (reply.body.details?.errors as { field: string }[] | undefined)?.map((error) => error.field) ?? [
      reply.body.details?.field,
    ];
    expect(fields).toContain(field);
    expect(await transactionCount(platformA)).toBe(before);
  });

  it('refuses a deleted customer with 404 USER_NOT_FOUND, by id and by UMA address', async () => {
    const leaving = await newCustomer(platformA);
    expect((await api.call('DELETE', `/customers/${leaving.customerId}`, { auth: platformA })).status).toBe(200);
    const byId = await receive(platformA, { ...valid(), customerId: leaving.customerId });
    expect(byId.body).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    const byAddress = await receive(platformA, { ...valid(), customerId: undefined, receiverUmaAddress: leaving.umaAddress });
    expect(byAddress.status).toBe(404);
  });

  it('refuses a malformed approve body and an unknown transaction', async () => {
    const unknown = await api.call('POST', '/transactions/Transaction:019542f5-b3e7-1d02-0000-000000000001/approve', { auth: platformA });
    expect(unknown.body).toMatchObject({ status: 404, code: 'TRANSACTION_NOT_FOUND' });
    const malformedId = await api.call('POST', '/transactions/nope/approve', { auth: platformA });
    expect(malformedId.status).toBe(404);
    answers.set(1012, 202);
    const reply = await receive(platformA, { ...valid(), receivingCurrencyAmount: 1012 });
    for (const body of [{ receiverCustomerInfo: 'x' }, { extra: true }, []]) {
      const bad = await api.call('POST', `/transactions/${reply.body.id}/approve`, { auth: platformA, body });
      expect(bad.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    }
    const badReason = await api.call('POST', `/transactions/${reply.body.id}/reject`, { auth: platformA, body: { reason: 7 } });
    expect(badReason.body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
  });
});

describe('timers survive a restart', () => {
  it('a deferred payment whose window ends while payments is down fails PAYMENT_APPROVAL_TIMED_OUT once it is back', async () => {
    const customer = await newCustomer(platformA);
    answers.set(1013, 202);
    const reply = await receive(platformA, {
      senderUmaAddress: SENDER,
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1013,
    });
    const id = reply.body.id as string;
    // The 202 is recorded (the deferral touches updatedAt); then the service stops for longer than the window.
    await waitUntil('the deferral', async () => {
      const read = await getTransaction(platformA, id);
      return read.body.status === 'PENDING' && read.body.updatedAt !== read.body.createdAt;
    });
    await stack.stop('payments');
    stack.advanceClock((APPROVAL_WINDOW_SECONDS + 1) * 1000);
    await stack.start('payments');
    const done = await untilStatus(id, ['COMPLETED', 'FAILED', 'REJECTED']);
    expect(done.body).toMatchObject({ status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_TIMED_OUT' });
    expect(await balanceOf(platformA, customer)).toBe(0);
  }, 90_000);
});
