// Every operation whose request body the reference makes optional (requestBody without
// required: true), read from the reference file itself, is sent without a body, with an empty body
// and Content-Type: application/json, and with an empty body and no Content-Type: each is answered
// as the route answers {} (never the 400 "the request body must be a JSON object" a Grid client got
// for a bodiless challenge or reject). A route the reference adds without a case here fails the
// first test. Every answer is checked against the reference by the api helper.
import { createApi, type CallOptions, type Credentials, type Reply } from './support/api';
import { eventually } from '@corridor/testing';
import { optionalBodyOperations } from './support/required-members';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';
import { type Receiver, startReceiver } from './support/webhook-receiver';

let stack: StackView;
let api: ReturnType<typeof createApi>;
let platform: Credentials;
let receiver: Receiver;
let customer: { customerId: string; usd: string; bank: string };
let agent: { id: string; bearer: string };
let walletCount = 0;

/** The three ways to send no body; the last two carry Content-Length: 0. */
const noBody: [string, CallOptions][] = [
  ['without a body', {}],
  ['with an empty body and Content-Type: application/json', { rawBody: Buffer.alloc(0), contentType: 'application/json' }],
  ['with an empty body and no Content-Type', { rawBody: Buffer.alloc(0), contentType: null }],
];

/** Per operation: a path to a fresh resource the operation applies to, and what its answer to {} is. */
type Case = {
  path: () => Promise<string>;
  send?: (path: string, options: CallOptions) => Promise<Reply>;
  expectAnswer: (reply: Reply, path: string) => void;
};

const post = (path: string, options: CallOptions = {}) => api.call('POST', path, { auth: platform, ...options });

/** An INCOMING payment waiting for the platform's approval (the receiver defers every approval hook with 202). */
const pendingIncoming = async (): Promise<string> => {
  const received = await post('/sandbox/uma/receive', {
    body: {
      senderUmaAddress: '$success.eur@sandbox.uma.money',
      customerId: customer.customerId,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1_000,
    },
  });
  expect(received.status).toBe(200);
  const id = received.body.id as string;
  await receiver.waitFor(
    (all) => all.some((item) => item.body.type === 'INCOMING_PAYMENT.PENDING' && item.body.data?.id === id),
    `the approval hook of ${id}`,
  );
  return id;
};
/** The payment's approval opens once its hook was answered: until then the route says it is not pending yet. */
const onceWaiting = (path: string, options: CallOptions) =>
  eventually(
    () => post(path, options),
    (reply) => reply.status !== 409,
  );

const cases: Record<string, Case> = {
  'POST /customers/{customerId}/kyc-link': {
    path: async () => `/customers/${customer.customerId}/kyc-link`,
    expectAnswer: (reply) => expect([reply.status, typeof reply.body.kycUrl]).toEqual([201, 'string']),
  },
  'POST /transactions/{transactionId}/confirm': {
    path: async () => {
      const transfer = await post('/transfer-out', {
        body: { source: { accountId: customer.usd }, destination: { accountId: customer.bank }, amount: 100 },
      });
      expect(transfer.status).toBe(201);
      return `/transactions/${transfer.body.id as string}/confirm`;
    },
    expectAnswer: (reply, path) =>
      expect([reply.status, reply.body.id, typeof reply.body.receiptDeliveryConfirmedAt]).toEqual([200, path.split('/')[2], 'string']),
  },
  'POST /transactions/{transactionId}/approve': {
    path: async () => `/transactions/${await pendingIncoming()}/approve`,
    send: onceWaiting,
    expectAnswer: (reply) => expect([reply.status, reply.body.status]).toEqual([200, 'COMPLETED']),
  },
  'POST /transactions/{transactionId}/reject': {
    path: async () => `/transactions/${await pendingIncoming()}/reject`,
    send: onceWaiting,
    expectAnswer: (reply) => expect([reply.status, reply.body.status]).toEqual([200, 'REJECTED']),
  },
  'POST /auth/credentials/{id}/challenge': {
    path: async () => {
      walletCount += 1;
      const created = await post('/customers', {
        body: {
          customerType: 'INDIVIDUAL',
          fullName: `Otto ${walletCount}`,
          email: `otto.${walletCount}.${Date.now()}@example.com`,
          currencies: ['USD'],
        },
      });
      const customerId = encodeURIComponent(created.body.id as string);
      const [wallet] = await eventually(
        async () =>
          ((await api.call('GET', `/customers/internal-accounts?customerId=${customerId}&type=EMBEDDED_WALLET`, { auth: platform })).body
            .data ?? []) as { id: string }[],
        (list) => list.length === 1,
      );
      const credentials = await api.call('GET', `/auth/credentials?accountId=${wallet!.id}`, { auth: platform });
      return `/auth/credentials/${credentials.body.data[0].id as string}/challenge`;
    },
    expectAnswer: (reply) =>
      expect([reply.status, reply.body.type, typeof reply.body.otpEncryptionTargetBundle]).toEqual([200, 'EMAIL_OTP', 'string']),
  },
  'POST /agents/{agentId}/actions/{actionId}/reject': {
    path: async () => {
      const held = await api.call('POST', '/agents/me/transfer-out', {
        auth: agent.bearer,
        body: { source: { accountId: customer.usd }, destination: { accountId: customer.bank }, amount: 100 },
      });
      expect([held.status, held.body.status]).toEqual([201, 'PENDING_APPROVAL']);
      return `/agents/${agent.id}/actions/${held.body.id as string}/reject`;
    },
    expectAnswer: (reply) => expect([reply.status, reply.body.status]).toEqual([200, 'REJECTED']),
  },
};

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'optional-bodies');
  platform = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
  receiver.respond = (request) => (request.body.type === 'INCOMING_PAYMENT.PENDING' ? 202 : 200);
  const config = { webhookEndpoint: receiver.url, embeddedWalletConfig: { appName: 'Optional Bodies', otpLength: 6, alphanumeric: false } };
  expect((await api.call('PATCH', '/config', { auth: platform, body: config })).status).toBe(200);
  const created = await post('/customers', { body: { customerType: 'INDIVIDUAL', fullName: 'Bodie Less', currencies: ['USD'] } });
  const customerId = created.body.id as string;
  const [usd] = await eventually(
    async () =>
      ((await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth: platform })).body.data ??
        []) as { id: string }[],
    (list) => list.length >= 1,
  );
  expect((await post(`/sandbox/internal-accounts/${usd!.id}/fund`, { body: { amount: 1_000_000 } })).status).toBe(200);
  const accountInfo = {
    accountType: 'USD_ACCOUNT',
    accountNumber: '000999000001',
    routingNumber: '011000015',
    beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Bodie Less' },
  };
  const bank = await post('/customers/external-accounts', { body: { customerId, currency: 'USD', accountInfo } });
  expect(bank.status).toBe(201);
  customer = { customerId, usd: usd!.id, bank: bank.body.id as string };
  const policy = {
    permissions: ['CREATE_TRANSFERS'],
    defaultExecutionMode: 'APPROVAL_REQUIRED',
    spendingLimits: {
      currency: 'USD',
      perTransactionLimit: 50_000,
      dailyLimit: 500_000,
      dailyTransactionLimit: 1_000,
      monthlyLimit: 5_000_000,
    },
  };
  const made = await post('/agents', { body: { name: 'Held', customerId, policy } });
  const redeemed = await api.call('POST', `/agents/device-codes/${made.body.deviceCode.code as string}/redeem`);
  agent = { id: made.body.agent.id as string, bearer: `Bearer ${redeemed.body.accessToken as string}` };
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await receiver?.close();
  await stack?.close();
});

const operations = optionalBodyOperations().map(({ method, template }) => `${method} ${template}`);

it('has a case for every operation whose body the reference makes optional', () => {
  expect(operations.length).toBeGreaterThan(0);
  expect(operations.filter((operation) => !cases[operation])).toEqual([]);
});

it.each(operations)('%s is answered as {} is when sent without a body', async (operation) => {
  const { path, send = post, expectAnswer } = cases[operation]!;
  for (const [way, options] of noBody) {
    const target = await path();
    const reply = await send(target, options);
    if (reply.status === 400) throw new Error(`${operation} ${way}: 400 ${reply.text}`);
    expectAnswer(reply, target);
  }
});
