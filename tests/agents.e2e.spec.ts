// Agents end to end with every app running: create and install (device codes: status, redeem once,
// regenerate), Bearer only on /agents/me and Basic only elsewhere, transfers and quote executions
// as AgentActions under the policy (limits at their boundary, with currency conversion, and 50
// concurrent requests against a daily limit), approval (approve, reject, 409s, expiry before
// approval, funds short), the AGENT_ACTION.PENDING_APPROVAL webhook, quotes from an Embedded
// Wallet (the customer's stamp checked before anything is written, carried to execution), pause,
// delete, and tenancy 404s across customers and platforms. Every response is checked against the
// reference by the api helper; the webhook against AgentActionWebhook.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { createApi, type Credentials } from './support/api';
import { type Stack, startStack } from './support/stack';
import { type Receiver, startReceiver, verifyGridSignature } from './support/webhook-receiver';
import { encryptOtp, genKeypair, signedHeaders, stamp } from './support/wallet-client';
import { Client } from 'pg';
import { type AgentRoute, agentPermissions, agentRoutePermissions } from '@corridor/contracts';
import { createConformance, REFERENCE_OPENAPI_FILE, eventually } from '@corridor/testing';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
let receiver: Receiver;
let publicKey: string;
let pg: Client;
/** Every answer this suite received, held against the statuses the reference declares (last describe but one). */
const answered: { method: string; path: string; status: number }[] = [];

type Customer = { customerId: string; usd: string; eur: string; bank: string; euroBank: string };
let alice: Customer;
let bob: Customer;
let customerCount = 0;
let accountCount = 0;

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' };
const ALL = ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'];

const newCustomer = async (auth: Credentials, funding: number): Promise<Customer> => {
  customerCount += 1;
  const created = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: `Agnes ${customerCount}`, currencies: ['USD', 'EUR'] },
  });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  const accounts = await eventually(
    async () =>
      (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth })).body.data as {
        id: string;
        balance: { currency: { code: string } };
      }[],
    (list) => list.length >= 2,
  );
  const usd = accounts.find((account) => account.balance.currency.code === 'USD')?.id ?? '';
  const eur = accounts.find((account) => account.balance.currency.code === 'EUR')?.id ?? '';
  if (funding > 0)
    expect((await api.call('POST', `/sandbox/internal-accounts/${usd}/fund`, { auth, body: { amount: funding } })).status).toBe(200);
  accountCount += 1;
  const bank = await api.call('POST', '/customers/external-accounts', {
    auth,
    body: {
      customerId,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: `4${String(accountCount).padStart(7, '0')}0001`,
        routingNumber: '011000015',
        beneficiary: person,
      },
    },
  });
  expect(bank.status).toBe(201);
  const bban = `370400440532${String(accountCount).padStart(6, '0')}`;
  const numeric = [...`${bban}DE00`].map((character) => parseInt(character, 36).toString()).join('');
  const check = String(98 - Number(BigInt(numeric) % 97n)).padStart(2, '0');
  const euroBank = await api.call('POST', '/customers/external-accounts', {
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
  expect(euroBank.status).toBe(201);
  return { customerId, usd, eur, bank: bank.body.id as string, euroBank: euroBank.body.id as string };
};

type Policy = Record<string, unknown>;
const policy = (overrides: Policy = {}): Policy => ({
  permissions: ALL,
  defaultExecutionMode: 'AUTO',
  spendingLimits: {
    currency: 'USD',
    perTransactionLimit: 50_000,
    dailyLimit: 500_000,
    dailyTransactionLimit: 1_000,
    monthlyLimit: 5_000_000,
  },
  ...overrides,
});

let agentCount = 0;
const createAgent = async (customer: Customer, agentPolicy: Policy = policy(), auth = platformA) => {
  agentCount += 1;
  const created = await api.call('POST', '/agents', {
    auth,
    body: { name: `Bot ${agentCount}`, customerId: customer.customerId, policy: agentPolicy },
  });
  expect(created.status).toBe(201);
  return created.body as { agent: { id: string }; deviceCode: { code: string } };
};
/** An installed agent: created, its code redeemed; returns its id and the Authorization header value. */
const connectedAgent = async (customer: Customer, agentPolicy: Policy = policy(), auth = platformA) => {
  const created = await createAgent(customer, agentPolicy, auth);
  const redeemed = await api.call('POST', `/agents/device-codes/${created.deviceCode.code}/redeem`);
  expect(redeemed.status).toBe(200);
  return { id: created.agent.id, bearer: `Bearer ${redeemed.body.accessToken as string}` };
};
const transferOut = (bearer: string, customer: Customer, amount: number) =>
  api.call('POST', '/agents/me/transfer-out', {
    auth: bearer,
    body: { source: { accountId: customer.usd }, destination: { accountId: customer.bank }, amount },
  });
const me = async (bearer: string) =>
  (await api.call('GET', '/agents/me', { auth: bearer })).body as {
    usage: { dailySpend: number; dailyTransactionCount: number; monthlySpend: number };
    isPaused: boolean;
  };
/** Every event the agents service has recorded, for "nothing written" checks (the tests run one at a time). */
const agentEvents = async () => (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM agents.events')).rows[0]!.n;

beforeAll(async () => {
  stack = await startStack({ appEnv: { payments: { QUOTE_TTL_SECONDS: '8' }, agents: { AGENT_EXECUTION_SWEEP_SECONDS: '1' } } });
  const checked = createApi(stack, 'agents');
  const call = async (...args: Parameters<typeof checked.call>) => {
    const reply = await checked.call(...args);
    answered.push({ method: args[0], path: args[1].split('?')[0]!, status: reply.status });
    return reply;
  };
  api = { ...checked, call: call as typeof checked.call };
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
  expect((await api.call('PATCH', '/config', { auth: platformA, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
  // Embedded Wallets on: a customer with an email gets a wallet (the customers below have none).
  expect(
    (
      await api.call('PATCH', '/config', {
        auth: platformA,
        body: { embeddedWalletConfig: { appName: 'Agent Wallet', otpLength: 10, alphanumeric: true } },
      })
    ).status,
  ).toBe(200);
  pg = new Client({ connectionString: stack.database.url });
  await pg.connect();
  publicKey = (await api.call('GET', '/webhooks/signing-key', { auth: platformA })).body.publicKey;
  [alice, bob] = await Promise.all([newCustomer(platformA, 100_000_000), newCustomer(platformA, 100_000_000)]);
}, 300_000);

afterAll(async () => {
  api?.saveReport();
  await pg?.end();
  await receiver?.close();
  await stack?.close();
});

describe('creating and installing an agent', () => {
  it('creates an unconnected agent with a device code that redeems once for a Bearer token', async () => {
    const created = await createAgent(alice);
    expect(created).toMatchObject({
      agent: {
        customerId: alice.customerId,
        isPaused: false,
        isConnected: false,
        usage: { dailySpend: 0, dailyTransactionCount: 0, monthlySpend: 0 },
      },
      deviceCode: { agentId: created.agent.id, redeemed: false },
    });
    expect(created.deviceCode.code).toMatch(/^AGENT-[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const code = created.deviceCode.code;
    expect((await api.call('GET', `/agents/device-codes/${code}/status`, { auth: platformA })).body).toEqual({ code, redeemed: false });

    const redeemed = await api.call('POST', `/agents/device-codes/${code}/redeem`);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({
      agentId: created.agent.id,
      agentName: expect.any(String),
      policy: { defaultExecutionMode: 'AUTO' },
    });
    expect(redeemed.body.accessToken).toMatch(/^cat_[0-9a-f]{64}$/);
    expect((await api.call('GET', `/agents/device-codes/${code}/status`, { auth: platformA })).body).toEqual({ code, redeemed: true });
    expect((await api.call('GET', `/agents/${created.agent.id}`, { auth: platformA })).body).toMatchObject({ isConnected: true });

    const again = await api.call('POST', `/agents/device-codes/${code}/redeem`);
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/already redeemed/);
    // A connected agent gets no new code.
    expect((await api.call('POST', `/agents/${created.agent.id}/device-codes`, { auth: platformA })).status).toBe(409);
    const profile = await api.call('GET', '/agents/me', { auth: `Bearer ${redeemed.body.accessToken as string}` });
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({ id: created.agent.id, customerId: alice.customerId, isConnected: true });
  });

  it('a regenerated code replaces the older unredeemed one', async () => {
    const created = await createAgent(alice);
    const regenerated = await api.call('POST', `/agents/${created.agent.id}/device-codes`, { auth: platformA });
    expect(regenerated.status).toBe(201);
    expect(regenerated.body).toMatchObject({ agentId: created.agent.id, redeemed: false });
    expect(regenerated.body.code).not.toBe(created.deviceCode.code);
    const old = await api.call('POST', `/agents/device-codes/${created.deviceCode.code}/redeem`);
    expect(old.status).toBe(400);
    expect(old.body.message).toMatch(/replaced/);
    expect((await api.call('POST', `/agents/device-codes/${regenerated.body.code as string}/redeem`)).status).toBe(200);
  });

  it('an unknown code is 404, and another platform cannot see a code', async () => {
    expect((await api.call('POST', '/agents/device-codes/AGENT-ZZZZ-ZZZZ-ZZZZ/redeem')).status).toBe(404);
    const created = await createAgent(alice);
    expect((await api.call('GET', `/agents/device-codes/${created.deviceCode.code}/status`, { auth: platformB })).status).toBe(404);
  });

  it('renames an agent: the new name shows in GET /agents/{id}, the list and /agents/me', async () => {
    const agent = await connectedAgent(alice);
    const renamed = await api.call('PATCH', `/agents/${agent.id}`, { auth: platformA, body: { name: 'Budget Bot' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: agent.id, name: 'Budget Bot', isPaused: false });
    expect((await api.call('GET', `/agents/${agent.id}`, { auth: platformA })).body).toMatchObject({ id: agent.id, name: 'Budget Bot' });
    const listed = (await api.call('GET', `/agents?customerId=${encodeURIComponent(alice.customerId)}&limit=100`, { auth: platformA })).body
      .data as { id: string; name: string }[];
    expect(listed.find((item) => item.id === agent.id)?.name).toBe('Budget Bot');
    expect((await api.call('GET', '/agents/me', { auth: agent.bearer })).body).toMatchObject({ id: agent.id, name: 'Budget Bot' });
  });

  it('a create retried under its Idempotency-Key answers the first agent and device code, and makes no second agent', async () => {
    const { customerId } = await newCustomer(platformA, 0);
    const create = () =>
      api.call('POST', '/agents', {
        auth: platformA,
        headers: { 'Idempotency-Key': `create-agent-${customerId}` },
        body: { name: 'Once', customerId, policy: policy() },
      });
    const first = await create();
    expect(first.status).toBe(201);
    const events = await agentEvents();
    const replayed = await create();
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotency-replayed')).toBe('true');
    expect(replayed.body).toEqual(first.body);
    expect(await agentEvents()).toBe(events);
    expect((await api.call('GET', `/agents?customerId=${encodeURIComponent(customerId)}`, { auth: platformA })).body.totalCount).toBe(1);
  });

  it('lists agents with filters and keyset paging, and refuses an unknown customer', async () => {
    const { customerId } = await newCustomer(platformA, 0);
    const listed = await Promise.all(
      [0, 1, 2].map(() => api.call('POST', '/agents', { auth: platformA, body: { name: 'Lister', customerId, policy: policy() } })),
    );
    const first = await api.call('GET', `/agents?customerId=${encodeURIComponent(customerId)}&limit=2`, { auth: platformA });
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 3 });
    const second = await api.call(
      'GET',
      `/agents?customerId=${encodeURIComponent(customerId)}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor as string)}`,
      { auth: platformA },
    );
    const ids = [...first.body.data, ...second.body.data].map((agent: { id: string }) => agent.id).sort();
    expect(ids).toEqual(listed.map((reply) => reply.body.agent.id as string).sort());
    expect(
      (await api.call('GET', `/agents?customerId=${encodeURIComponent(customerId)}&isConnected=true`, { auth: platformA })).body.totalCount,
    ).toBe(0);
    // createAgent declares no 404: a customerId that names no customer of this platform is a 400 on the field.
    const unknown = await api.call('POST', '/agents', {
      auth: platformA,
      body: { name: 'x', customerId: 'Customer:019542f5-b3e7-1d02-0000-000000000001', policy: policy() },
    });
    expect(unknown.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'customerId' } });
    const otherPlatforms = await newCustomer(platformB, 0);
    expect(
      (await api.call('POST', '/agents', { auth: platformA, body: { name: 'x', customerId: otherPlatforms.customerId, policy: policy() } }))
        .body,
    ).toMatchObject({ status: 400, details: { field: 'customerId' } });
  });
});

describe('credentials', () => {
  it('an agent token never works on platform routes, a platform token never on /agents/me', async () => {
    const agent = await connectedAgent(alice);
    for (const path of ['/customers', '/agents', `/agents/${agent.id}`, '/transactions']) {
      const reply = await api.call('GET', path, { auth: agent.bearer });
      expect([path, reply.status, reply.body.code]).toEqual([path, 401, 'UNAUTHORIZED']);
    }
    for (const path of ['/agents/me', '/agents/me/actions', '/agents/me/transactions']) {
      const reply = await api.call('GET', path, { auth: platformA });
      expect([path, reply.status, reply.body.code]).toEqual([path, 401, 'UNAUTHORIZED']);
    }
    expect((await api.call('GET', '/agents/me')).status).toBe(401);
    expect((await api.call('GET', '/agents/me', { auth: 'Bearer cat_0000' })).status).toBe(401);
  });
});

describe('policy evaluation over the API', () => {
  it('runs a transfer within the policy at once: APPROVED with the transaction, which carries agentId', async () => {
    const agent = await connectedAgent(alice);
    const reply = await transferOut(agent.bearer, alice, 1_234);
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      agentId: agent.id,
      customerId: alice.customerId,
      status: 'APPROVED',
      type: 'TRANSFER_OUT',
      transferDetails: { amount: 1_234, currency: 'USD', sourceAccountId: alice.usd, destinationAccountId: alice.bank },
      transaction: { agentId: agent.id },
    });
    const transactionId = reply.body.transaction.id as string;
    expect((await api.call('GET', `/transactions/${transactionId}`, { auth: platformA })).body).toMatchObject({ agentId: agent.id });
    expect((await api.call('GET', `/agents/me/transactions/${transactionId}`, { auth: agent.bearer })).body).toMatchObject({
      id: transactionId,
      agentId: agent.id,
    });
    expect((await api.call('GET', `/agents/me/actions/${reply.body.id as string}`, { auth: agent.bearer })).body).toMatchObject({
      id: reply.body.id,
      status: 'APPROVED',
    });
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 1_234, dailyTransactionCount: 1, monthlySpend: 1_234 });
  });

  it('a transfer-out retried under its Idempotency-Key answers the first action and moves and counts the money once', async () => {
    const agent = await connectedAgent(alice);
    const send = () =>
      api.call('POST', '/agents/me/transfer-out', {
        auth: agent.bearer,
        headers: { 'Idempotency-Key': `agent-out-${agent.id}` },
        body: { source: { accountId: alice.usd }, destination: { accountId: alice.bank }, amount: 321 },
      });
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'APPROVED', transaction: { agentId: agent.id } });
    const events = await agentEvents();
    const replayed = await send();
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotency-replayed')).toBe('true');
    expect(replayed.body).toEqual(first.body);
    expect(await agentEvents()).toBe(events);
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 321, dailyTransactionCount: 1 });
    expect((await api.call('GET', '/agents/me/actions', { auth: agent.bearer })).body.totalCount).toBe(1);
    const transactions = (await api.call('GET', '/agents/me/transactions?limit=100', { auth: agent.bearer })).body.data as {
      agentId?: string;
    }[];
    expect(transactions.filter((transaction) => transaction.agentId === agent.id)).toHaveLength(1);
  });

  it('per-transaction limit: exactly the limit passes, one minor unit over is 403', async () => {
    const agent = await connectedAgent(alice, policy({ spendingLimits: { currency: 'USD', perTransactionLimit: 5_000 } }));
    const over = await transferOut(agent.bearer, alice, 5_001);
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ code: 'FORBIDDEN', details: { limit: 'perTransactionLimit' } });
    expect((await transferOut(agent.bearer, alice, 5_000)).status).toBe(201);
  });

  it('daily limit and daily count: the request reaching the limit passes, the next is VELOCITY_LIMIT_EXCEEDED', async () => {
    const agent = await connectedAgent(
      alice,
      policy({ spendingLimits: { currency: 'USD', perTransactionLimit: 5_000, dailyLimit: 7_000, dailyTransactionLimit: 3 } }),
    );
    expect((await transferOut(agent.bearer, alice, 5_000)).status).toBe(201);
    const over = await transferOut(agent.bearer, alice, 2_001);
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ code: 'VELOCITY_LIMIT_EXCEEDED', details: { limit: 'dailyLimit' } });
    expect((await transferOut(agent.bearer, alice, 2_000)).status).toBe(201);
    // Two transactions so far; the daily limit is spent, so lift it: the count then binds at 3.
    expect(
      (await api.call('PATCH', `/agents/${agent.id}/policy`, { auth: platformA, body: { spendingLimits: { dailyLimit: null } } })).body
        .policy.spendingLimits,
    ).toMatchObject({ dailyLimit: null, dailyTransactionLimit: 3 });
    expect((await transferOut(agent.bearer, alice, 1)).status).toBe(201);
    const fourth = await transferOut(agent.bearer, alice, 1);
    expect(fourth.body).toMatchObject({ status: 403, code: 'VELOCITY_LIMIT_EXCEEDED', details: { limit: 'dailyTransactionLimit' } });
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 7_001, dailyTransactionCount: 3 });
  });

  /** USD cents → EUR cents at the rate payments lists now, rounded up, as the policy converts; and the least USD amount converting above a limit. */
  const usdToEur = async () => {
    const rates = await api.call('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR', { auth: platformA });
    const listed = (Array.isArray(rates.body) ? rates.body : rates.body.data) as {
      destinationCurrency: { code: string };
      exchangeRate: number;
    }[];
    const rate = String(listed.find((entry) => entry.destinationCurrency.code === 'EUR')!.exchangeRate);
    const [whole, fraction = ''] = rate.split('.');
    const scaled = BigInt(`${whole}${fraction}`);
    const inEur = (usdCents: number) => Number((BigInt(usdCents) * 10n ** BigInt(fraction.length) + scaled - 1n) / scaled);
    const leastAbove = (usdCents: number) => {
      let over = usdCents;
      while (inEur(over) <= inEur(usdCents)) over += 1;
      return over;
    };
    return { inEur, leastAbove };
  };

  it('converts a USD transfer into the EUR limits at the rate payments quotes now, rounding up', async () => {
    const { inEur, leastAbove } = await usdToEur();
    const limit = inEur(10_000);
    const over = leastAbove(10_000);
    const agent = await connectedAgent(alice, policy({ spendingLimits: { currency: 'EUR', perTransactionLimit: limit } }));
    const refused = await transferOut(agent.bearer, alice, over);
    expect(refused.body).toMatchObject({ status: 403, details: { limit: 'perTransactionLimit', amount: limit + 1 } });
    expect((await transferOut(agent.bearer, alice, 10_000)).status).toBe(201);
    expect((await me(agent.bearer)).usage.dailySpend).toBe(limit);
  });

  it('monthly limit: the request reaching the limit passes, one minor unit over is VELOCITY_LIMIT_EXCEEDED', async () => {
    const agent = await connectedAgent(
      alice,
      policy({ spendingLimits: { currency: 'USD', perTransactionLimit: 5_000, dailyLimit: 100_000, monthlyLimit: 7_000 } }),
    );
    expect((await transferOut(agent.bearer, alice, 5_000)).status).toBe(201);
    const over = await transferOut(agent.bearer, alice, 2_001);
    expect(over.body).toMatchObject({
      status: 403,
      code: 'VELOCITY_LIMIT_EXCEEDED',
      details: { limit: 'monthlyLimit', monthlyLimit: 7_000 },
    });
    expect((await transferOut(agent.bearer, alice, 2_000)).status).toBe(201);
    expect((await me(agent.bearer)).usage).toMatchObject({ monthlySpend: 7_000, dailyTransactionCount: 2 });
  });

  it("an account rule's per-transaction limit, in the policy's EUR, binds a USD transfer from that account at its boundary", async () => {
    const { inEur, leastAbove } = await usdToEur();
    const limit = inEur(3_000);
    const over = leastAbove(3_000);
    const agent = await connectedAgent(
      alice,
      policy({
        spendingLimits: { currency: 'EUR', perTransactionLimit: 1_000_000 },
        accountRestrictions: { accountRules: [{ accountId: alice.usd, perTransactionLimit: limit }] },
      }),
    );
    const refused = await transferOut(agent.bearer, alice, over);
    expect(refused.body).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      details: { limit: 'perTransactionLimit', perTransactionLimit: limit, amount: inEur(over) },
    });
    expect(refused.body.message).toMatch(/per-transaction limit of account/);
    expect((await transferOut(agent.bearer, alice, 3_000)).status).toBe(201);
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: limit, dailyTransactionCount: 1 });
  });

  it('50 concurrent transfers against a daily limit of 10 of them: exactly 10 are taken, all 10 execute', async () => {
    const agent = await connectedAgent(
      alice,
      policy({ spendingLimits: { currency: 'USD', perTransactionLimit: 1_000, dailyLimit: 10_000 } }),
    );
    const replies = await Promise.all(Array.from({ length: 50 }, () => transferOut(agent.bearer, alice, 1_000)));
    const statuses = replies.map((reply) => reply.status);
    // On a busy machine an accepted transfer may answer 503 while payments is slow; its action is
    // recorded and the executor's sweep finishes it. What may never happen is an 11th.
    const other = replies.filter((reply) => reply.status !== 201 && reply.status !== 403);
    if (other.length > 0)
      console.log(
        'agents 50-concurrent: answers other than 201/403',
        JSON.stringify(other.map((reply) => [reply.status, reply.body?.code, reply.body?.message])),
      );
    expect(other.every((reply) => reply.status === 503)).toBe(true);
    expect(statuses.filter((status) => status === 403)).toHaveLength(40);
    expect(replies.filter((reply) => reply.status === 403).every((reply) => reply.body.code === 'VELOCITY_LIMIT_EXCEEDED')).toBe(true);
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 10_000, dailyTransactionCount: 10 });
    const actions = await eventually(
      async () =>
        (await api.call('GET', '/agents/me/actions?limit=100', { auth: agent.bearer })).body as {
          totalCount: number;
          data: { status: string; transaction?: { agentId: string } }[];
        },
      (page) => page.data.every((action) => action.transaction !== undefined),
      30_000,
    );
    expect(actions.totalCount).toBe(10);
    expect(actions.data.every((action) => action.status === 'APPROVED' && action.transaction?.agentId === agent.id)).toBe(true);
  });

  it('restricts the agent to allowed accounts; an account rule holds its transfers for approval', async () => {
    const restricted = await connectedAgent(alice, policy({ accountRestrictions: { allowedAccountIds: [alice.eur] } }));
    expect((await transferOut(restricted.bearer, alice, 100)).body).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      details: { accountId: alice.usd },
    });
    const ruled = await connectedAgent(
      alice,
      policy({ accountRestrictions: { accountRules: [{ accountId: alice.usd, executionMode: 'APPROVAL_REQUIRED' }] } }),
    );
    expect((await transferOut(ruled.bearer, alice, 100)).body).toMatchObject({ status: 'PENDING_APPROVAL' });
  });
});

describe('approval', () => {
  it('holds an action for approval with a webhook; approve executes it once; a second approve is 409', async () => {
    const agent = await connectedAgent(alice, policy({ approvalThresholds: { currency: 'USD', amount: 2_000 } }));
    expect((await transferOut(agent.bearer, alice, 2_000)).body.status).toBe('APPROVED');
    const held = await transferOut(agent.bearer, alice, 2_001);
    expect(held.status).toBe(201);
    expect(held.body).toMatchObject({ status: 'PENDING_APPROVAL', agentId: agent.id, platformCustomerId: expect.any(String) });
    expect(held.body).not.toHaveProperty('transaction');
    const actionId = held.body.id as string;

    await receiver.waitFor(
      (received) => received.some((item) => item.body.type === 'AGENT_ACTION.PENDING_APPROVAL' && item.body.data.id === actionId),
      'AGENT_ACTION.PENDING_APPROVAL',
    );
    const webhook = receiver.received.find((item) => item.body.data.id === actionId)!;
    expect(verifyGridSignature(webhook.rawBody, webhook.signature, publicKey)).toBe(true);
    expect(webhook.body.data).toMatchObject({ id: actionId, status: 'PENDING_APPROVAL', transferDetails: { amount: 2_001 } });
    expect(() => createConformance().checkWebhook(webhook.body)).not.toThrow();

    const pending = await api.call('GET', `/agents/approvals?agentId=${encodeURIComponent(agent.id)}`, { auth: platformA });
    expect(pending.body.data.map((action: { id: string }) => action.id)).toEqual([actionId]);
    expect(
      (await api.call('GET', `/agents/approvals?customerId=${encodeURIComponent(bob.customerId)}`, { auth: platformA })).body.data.map(
        (action: { id: string }) => action.id,
      ),
    ).not.toContain(actionId);

    const approved = await api.call('POST', `/agents/${agent.id}/actions/${actionId}/approve`, { auth: platformA });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      id: actionId,
      status: 'APPROVED',
      transaction: { agentId: agent.id, customerId: alice.customerId },
    });
    expect((await api.call('POST', `/agents/${agent.id}/actions/${actionId}/approve`, { auth: platformA })).status).toBe(409);
    expect((await api.call('POST', `/agents/${agent.id}/actions/${actionId}/reject`, { auth: platformA, body: {} })).status).toBe(409);
    expect((await api.call('GET', `/agents/approvals?agentId=${encodeURIComponent(agent.id)}`, { auth: platformA })).body.data).toEqual([]);
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 4_001, dailyTransactionCount: 2 });
  });

  it('a quote execution held for approval sends AGENT_ACTION.PENDING_APPROVAL with its quote, as the reference has it', async () => {
    const agent = await connectedAgent(alice, policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const quote = await api.call('POST', '/agents/me/quotes', {
      auth: agent.bearer,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: alice.usd },
        destination: { destinationType: 'ACCOUNT', accountId: alice.euroBank },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    });
    expect(quote.status).toBe(201);
    const held = await api.call('POST', `/agents/me/quotes/${quote.body.id as string}/execute`, { auth: agent.bearer });
    expect(held.body).toMatchObject({ type: 'EXECUTE_QUOTE', status: 'PENDING_APPROVAL' });
    const actionId = held.body.id as string;

    await receiver.waitFor(
      (received) => received.some((item) => item.body.type === 'AGENT_ACTION.PENDING_APPROVAL' && item.body.data.id === actionId),
      'AGENT_ACTION.PENDING_APPROVAL for a quote',
    );
    const webhook = receiver.received.find((item) => item.body.data.id === actionId)!;
    expect(verifyGridSignature(webhook.rawBody, webhook.signature, publicKey)).toBe(true);
    expect(webhook.body).toMatchObject({
      type: 'AGENT_ACTION.PENDING_APPROVAL',
      data: {
        id: actionId,
        agentId: agent.id,
        customerId: alice.customerId,
        type: 'EXECUTE_QUOTE',
        status: 'PENDING_APPROVAL',
        quote: { id: quote.body.id, status: 'PENDING', totalSendingAmount: quote.body.totalSendingAmount },
      },
    });
    expect(webhook.body.data).not.toHaveProperty('transaction');
    expect(webhook.body.data).not.toHaveProperty('transferDetails');
    expect(() => createConformance().checkWebhook(webhook.body)).not.toThrow();
    expect((await api.call('POST', `/agents/${agent.id}/actions/${actionId}/reject`, { auth: platformA, body: {} })).body.status).toBe(
      'REJECTED',
    );
  });

  it('reject records the reason, executes nothing and gives the usage back', async () => {
    const agent = await connectedAgent(alice, policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const held = await transferOut(agent.bearer, alice, 3_000);
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 3_000, dailyTransactionCount: 1 });
    const rejected = await api.call('POST', `/agents/${agent.id}/actions/${held.body.id as string}/reject`, {
      auth: platformA,
      body: { reason: 'Not this week' },
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'REJECTED', rejectionReason: 'Not this week' });
    expect(rejected.body).not.toHaveProperty('transaction');
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 });
    expect((await api.call('POST', `/agents/${agent.id}/actions/${held.body.id as string}/approve`, { auth: platformA })).status).toBe(409);
    expect(
      (await api.call('GET', '/agents/me/transactions', { auth: agent.bearer })).body.data.filter(
        (transaction: { agentId?: string }) => transaction.agentId === agent.id,
      ),
    ).toEqual([]);
  });

  it('approving after the funds ran short fails the action and gives the usage back', async () => {
    const poor = await newCustomer(platformA, 1_000);
    const agent = await connectedAgent(poor, policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const held = await transferOut(agent.bearer, poor, 5_000);
    expect(held.body.status).toBe('PENDING_APPROVAL');
    const approved = await api.call('POST', `/agents/${agent.id}/actions/${held.body.id as string}/approve`, { auth: platformA });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'FAILED' });
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 });
  });

  it('a quote that expires before approval fails on approve', async () => {
    const agent = await connectedAgent(alice, policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const quote = await api.call('POST', '/agents/me/quotes', {
      auth: agent.bearer,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: alice.usd },
        destination: { destinationType: 'ACCOUNT', accountId: alice.euroBank },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    });
    expect(quote.status).toBe(201);
    expect((await api.call('GET', `/agents/me/quotes/${quote.body.id as string}`, { auth: agent.bearer })).status).toBe(200);
    const held = await api.call('POST', `/agents/me/quotes/${quote.body.id as string}/execute`, { auth: agent.bearer });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ type: 'EXECUTE_QUOTE', status: 'PENDING_APPROVAL', quote: { id: quote.body.id } });
    stack.advanceClock(Date.parse(quote.body.expiresAt as string) - Date.now() + 500);
    const approved = await api.call('POST', `/agents/${agent.id}/actions/${held.body.id as string}/approve`, { auth: platformA });
    expect(approved.body).toMatchObject({ status: 'FAILED' });
    expect((await me(agent.bearer)).usage.dailyTransactionCount).toBe(0);
  });

  it('executes an agent quote at once in AUTO mode: the transaction carries agentId', async () => {
    const agent = await connectedAgent(alice);
    const quote = await api.call('POST', '/agents/me/quotes', {
      auth: agent.bearer,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: alice.usd },
        destination: { destinationType: 'ACCOUNT', accountId: alice.euroBank },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    });
    const executed = await api.call('POST', `/agents/me/quotes/${quote.body.id as string}/execute`, { auth: agent.bearer });
    expect(executed.status).toBe(200);
    expect(executed.body).toMatchObject({
      type: 'EXECUTE_QUOTE',
      status: 'APPROVED',
      transaction: { quoteId: quote.body.id, agentId: agent.id },
    });
    // Another agent's quote is not this agent's to read or execute.
    const other = await connectedAgent(alice);
    expect((await api.call('GET', `/agents/me/quotes/${quote.body.id as string}`, { auth: other.bearer })).status).toBe(404);
    expect((await api.call('POST', `/agents/me/quotes/${quote.body.id as string}/execute`, { auth: other.bearer })).status).toBe(404);
  });
});

// An agent's quote from the customer's Embedded Wallet executes only with the customer's stamp
// (Grid-Wallet-Signature over the quote's payloadToSign, made by an active session of the wallet),
// as the platform's POST /quotes/{id}/execute does. The agents service checks the stamp before it
// reserves usage or records an action, and carries it in the action to its execution.
describe('a quote from an Embedded Wallet', () => {
  type Wallet = { customerId: string; accountId: string; credentialId: string; bank: string };
  type Session = { id: string; privHex: string };
  let wallet: Wallet;

  const walletAccount = async (customerId: string) =>
    (
      await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&type=EMBEDDED_WALLET`, {
        auth: platformA,
      })
    ).body.data as { id: string; balance: { amount: number } }[];
  const walletBalance = async () => (await walletAccount(wallet.customerId))[0]!.balance.amount;

  /** challenge → the OTP from the sandbox mailbox, sealed to the TEK → verify (202) → the TEK-signed retry: the TEK is the session key. */
  const login = async (): Promise<Session> => {
    const challenged = await api.call('POST', `/auth/credentials/${wallet.credentialId}/challenge`, { auth: platformA, body: {} });
    expect(challenged.status).toBe(200);
    const mail = (await api.call('GET', `/sandbox/auth/mailbox?accountId=${wallet.accountId}`, { auth: platformA, unchecked: true })).body
      .data as { otpCode: string }[];
    const tek = genKeypair();
    const body = {
      type: 'EMAIL_OTP',
      encryptedOtpBundle: await encryptOtp(challenged.body.otpEncryptionTargetBundle as string, tek.pubHex, mail[0]!.otpCode),
    };
    const first = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, { auth: platformA, body });
    expect(first.status).toBe(202);
    const second = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, {
      auth: platformA,
      body,
      headers: signedHeaders(tek.privHex, first.body),
    });
    expect(second.status).toBe(200);
    return { id: second.body.id as string, privHex: tek.privHex };
  };

  const quoteFromWallet = async (bearer: string) => {
    const quote = await api.call('POST', '/agents/me/quotes', {
      auth: bearer,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: wallet.accountId },
        destination: { destinationType: 'ACCOUNT', accountId: wallet.bank },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 5_000_000,
      },
    });
    expect(quote.status).toBe(201);
    const instructions = quote.body.paymentInstructions as { accountOrWalletInfo: { accountType: string; payloadToSign?: string } }[];
    const payloadToSign = instructions.find((item) => item.accountOrWalletInfo.accountType === 'EMBEDDED_WALLET')?.accountOrWalletInfo
      .payloadToSign;
    expect(payloadToSign).toEqual(expect.any(String));
    return { id: quote.body.id as string, totalSendingAmount: quote.body.totalSendingAmount as number, payloadToSign: payloadToSign! };
  };
  const execute = (bearer: string, quoteId: string, headers: Record<string, string> = {}) =>
    api.call('POST', `/agents/me/quotes/${quoteId}/execute`, { auth: bearer, headers });
  const walletAgent = (agentPolicy: Policy = policy()) => connectedAgent({ ...alice, customerId: wallet.customerId }, agentPolicy);

  beforeAll(async () => {
    customerCount += 1;
    const email = `agent.wallet.${customerCount}.${Date.now()}@example.com`;
    const created = await api.call('POST', '/customers', {
      auth: platformA,
      body: { customerType: 'INDIVIDUAL', fullName: `Wanda ${customerCount}`, email, currencies: ['USD'] },
    });
    expect(created.status).toBe(201);
    const customerId = created.body.id as string;
    const [account] = await eventually(
      () => walletAccount(customerId),
      (list) => list.length === 1,
      30_000,
    );
    const credentials = await api.call('GET', `/auth/credentials?accountId=${account!.id}`, { auth: platformA });
    accountCount += 1;
    const bank = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: {
        customerId,
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: `6${String(accountCount).padStart(7, '0')}0001`,
          routingNumber: '011000015',
          beneficiary: person,
        },
      },
    });
    expect(bank.status).toBe(201);
    wallet = { customerId, accountId: account!.id, credentialId: credentials.body.data[0].id as string, bank: bank.body.id as string };
    expect(
      (await api.call('POST', `/sandbox/internal-accounts/${wallet.accountId}/fund`, { auth: platformA, body: { amount: 100_000_000 } }))
        .status,
    ).toBe(200);
  });

  it("executes only with a stamp of an active session; without one, or with a bad one, it is the platform route's 401 and nothing is written", async () => {
    const session = await login();
    const agent = await walletAgent();
    const quote = await quoteFromWallet(agent.bearer);
    const before = { events: await agentEvents(), usage: (await me(agent.bearer)).usage, balance: await walletBalance() };
    const refusals = [
      await execute(agent.bearer, quote.id),
      await execute(agent.bearer, quote.id, { 'Grid-Wallet-Signature': 'not-a-stamp!' }),
      await execute(agent.bearer, quote.id, { 'Grid-Wallet-Signature': stamp(genKeypair().privHex, quote.payloadToSign) }),
      await execute(agent.bearer, quote.id, { 'Grid-Wallet-Signature': stamp(session.privHex, `${quote.payloadToSign} `) }),
    ];
    expect(refusals.map((reply) => [reply.status, reply.body.code])).toEqual([
      [401, 'WALLET_SIGNATURE_MISSING'],
      [401, 'WALLET_SIGNATURE_MALFORMED'],
      [401, 'WALLET_SIGNATURE_INVALID'],
      [401, 'WALLET_SIGNATURE_INVALID'],
    ]);
    // No action, no usage, no money moved.
    expect((await api.call('GET', '/agents/me/actions', { auth: agent.bearer })).body.totalCount).toBe(0);
    expect({ events: await agentEvents(), usage: (await me(agent.bearer)).usage, balance: await walletBalance() }).toEqual(before);

    const executed = await execute(agent.bearer, quote.id, { 'Grid-Wallet-Signature': stamp(session.privHex, quote.payloadToSign) });
    expect(executed.status).toBe(200);
    expect(executed.body).toMatchObject({
      type: 'EXECUTE_QUOTE',
      status: 'APPROVED',
      transaction: { quoteId: quote.id, agentId: agent.id },
    });
    expect(await walletBalance()).toBe(before.balance - quote.totalSendingAmount);
    expect((await me(agent.bearer)).usage.dailyTransactionCount).toBe(1);
  });

  it('a refusal for a missing stamp decided nothing: the retry under the same Idempotency-Key with the stamp executes', async () => {
    const session = await login();
    const agent = await walletAgent();
    const quote = await quoteFromWallet(agent.bearer);
    const key = { 'Idempotency-Key': `wallet-execute-${quote.id}` };
    const unsigned = await execute(agent.bearer, quote.id, key);
    expect([unsigned.status, unsigned.body.code]).toEqual([401, 'WALLET_SIGNATURE_MISSING']);
    const signed = await execute(agent.bearer, quote.id, { ...key, 'Grid-Wallet-Signature': stamp(session.privHex, quote.payloadToSign) });
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ type: 'EXECUTE_QUOTE', status: 'APPROVED', transaction: { quoteId: quote.id } });
    // And the success is what the key replays from now on.
    const again = await execute(agent.bearer, quote.id, { ...key, 'Grid-Wallet-Signature': stamp(session.privHex, quote.payloadToSign) });
    expect(again.body).toEqual(signed.body);
  });

  it('an action held for approval executes with the stamp it was submitted with', async () => {
    const session = await login();
    const agent = await walletAgent(policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const quote = await quoteFromWallet(agent.bearer);
    const held = await execute(agent.bearer, quote.id, { 'Grid-Wallet-Signature': stamp(session.privHex, quote.payloadToSign) });
    expect(held.body).toMatchObject({ status: 'PENDING_APPROVAL', quote: { id: quote.id } });
    const approved = await api.call('POST', `/agents/${agent.id}/actions/${held.body.id as string}/approve`, { auth: platformA });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'APPROVED', transaction: { quoteId: quote.id, agentId: agent.id } });
  });

  it('fails on approve, naming the ended session, when the session that stamped it is no longer active', async () => {
    const session = await login();
    const agent = await walletAgent(policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const quote = await quoteFromWallet(agent.bearer);
    const held = await execute(agent.bearer, quote.id, { 'Grid-Wallet-Signature': stamp(session.privHex, quote.payloadToSign) });
    expect(held.body.status).toBe('PENDING_APPROVAL');
    // The session ends before the platform approves: revoked here (self-logout); an expired one is
    // refused by accounts the same way (neither is an active session of the wallet).
    const first = await api.call('DELETE', `/auth/sessions/${session.id}`, { auth: platformA });
    expect(first.status).toBe(202);
    expect(
      (await api.call('DELETE', `/auth/sessions/${session.id}`, { auth: platformA, headers: signedHeaders(session.privHex, first.body) }))
        .status,
    ).toBe(204);
    const balance = await walletBalance();
    const approved = await api.call('POST', `/agents/${agent.id}/actions/${held.body.id as string}/approve`, { auth: platformA });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: held.body.id, status: 'FAILED' });
    const stored = await pg.query<{ reason: string }>(`SELECT action->>'failureReason' AS reason FROM agents.agent_actions WHERE id = $1`, [
      held.body.id,
    ]);
    expect(stored.rows[0]?.reason).toBe('WALLET_SESSION_EXPIRED');
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 });
    expect(await walletBalance()).toBe(balance);
  });
});

describe('pause and delete', () => {
  it('a paused agent reads but does not act; resumed, it acts again', async () => {
    const agent = await connectedAgent(alice);
    expect((await api.call('PATCH', `/agents/${agent.id}`, { auth: platformA, body: { isPaused: true } })).body).toMatchObject({
      isPaused: true,
    });
    expect((await me(agent.bearer)).isPaused).toBe(true);
    const refused = await transferOut(agent.bearer, alice, 100);
    expect(refused.body).toMatchObject({ status: 403, code: 'FORBIDDEN', details: { isPaused: true } });
    expect((await api.call('GET', '/agents/me/actions', { auth: agent.bearer })).status).toBe(200);
    expect((await api.call('PATCH', `/agents/${agent.id}`, { auth: platformA, body: { isPaused: false } })).body).toMatchObject({
      isPaused: false,
    });
    expect((await transferOut(agent.bearer, alice, 100)).status).toBe(201);
  });

  it('a deleted agent is gone and its token dead at once', async () => {
    const agent = await connectedAgent(alice);
    expect((await api.call('DELETE', `/agents/${agent.id}`, { auth: platformA })).status).toBe(204);
    expect((await api.call('GET', '/agents/me', { auth: agent.bearer })).status).toBe(401);
    expect((await transferOut(agent.bearer, alice, 100)).status).toBe(401);
    expect((await api.call('GET', `/agents/${agent.id}`, { auth: platformA })).status).toBe(404);
    expect((await api.call('DELETE', `/agents/${agent.id}`, { auth: platformA })).status).toBe(404);
  });
});

describe('tenancy', () => {
  it("another customer's accounts, transactions and external accounts are 404 to an agent", async () => {
    const agent = await connectedAgent(alice);
    const bobs = await connectedAgent(bob);
    const bobTransfer = await transferOut(bobs.bearer, bob, 100);
    expect(
      (
        await api.call('POST', '/agents/me/transfer-out', {
          auth: agent.bearer,
          body: { source: { accountId: bob.usd }, destination: { accountId: alice.bank }, amount: 100 },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api.call('POST', '/agents/me/transfer-out', {
          auth: agent.bearer,
          body: { source: { accountId: alice.usd }, destination: { accountId: bob.bank }, amount: 100 },
        })
      ).status,
    ).toBe(404);
    expect(
      (await api.call('GET', `/agents/me/transactions/${bobTransfer.body.transaction.id as string}`, { auth: agent.bearer })).status,
    ).toBe(404);
    expect((await api.call('GET', `/agents/me/external-accounts/${bob.bank}`, { auth: agent.bearer })).status).toBe(404);
    expect((await api.call('DELETE', `/agents/me/external-accounts/${bob.bank}`, { auth: agent.bearer })).status).toBe(404);
    expect((await api.call('GET', `/agents/me/actions/${bobTransfer.body.id as string}`, { auth: agent.bearer })).status).toBe(404);
    // agentCreateQuote declares no 404: another customer's account is a 400 on the field, as POST /quotes answers.
    const quote = (source: string, destination: string) =>
      api.call('POST', '/agents/me/quotes', {
        auth: agent.bearer,
        body: {
          source: { sourceType: 'ACCOUNT', accountId: source },
          destination: { destinationType: 'ACCOUNT', accountId: destination },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 1_000,
        },
      });
    expect((await quote(bob.usd, alice.euroBank)).body).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      details: { field: 'source.accountId' },
    });
    expect((await quote(alice.usd, bob.euroBank)).body).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      details: { field: 'destination.accountId' },
    });
    const listed = await api.call('GET', '/agents/me/transactions?limit=100', { auth: agent.bearer });
    expect(listed.body.data.every((transaction: { customerId: string }) => transaction.customerId === alice.customerId)).toBe(true);
    const accounts = await api.call('GET', '/agents/me/internal-accounts', { auth: agent.bearer });
    expect(accounts.body.data.map((account: { id: string }) => account.id).sort()).toEqual([alice.usd, alice.eur].sort());
    const externals = await api.call('GET', '/agents/me/external-accounts', { auth: agent.bearer });
    expect(externals.body.data.every((account: { customerId: string }) => account.customerId === alice.customerId)).toBe(true);
  });

  it("a transfer-in naming another customer's account is 404, and nothing is taken or written", async () => {
    const agent = await connectedAgent(alice);
    const events = await agentEvents();
    const transferIn = (source: string, destination: string) =>
      api.call('POST', '/agents/me/transfer-in', {
        auth: agent.bearer,
        body: { source: { accountId: source }, destination: { accountId: destination }, amount: 100 },
      });
    expect((await transferIn(bob.bank, alice.usd)).body).toMatchObject({
      status: 404,
      code: 'REFERENCE_NOT_FOUND',
      details: { field: 'source.accountId' },
    });
    expect((await transferIn(alice.bank, bob.usd)).body).toMatchObject({
      status: 404,
      code: 'REFERENCE_NOT_FOUND',
      details: { field: 'destination.accountId' },
    });
    expect(await agentEvents()).toBe(events);
    expect((await me(agent.bearer)).usage).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 });
    expect((await api.call('GET', '/agents/me/actions', { auth: agent.bearer })).body.totalCount).toBe(0);
  });

  it("another platform's agents and actions are 404", async () => {
    const agent = await connectedAgent(alice, policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const held = await transferOut(agent.bearer, alice, 100);
    for (const [method, path] of [
      ['GET', `/agents/${agent.id}`],
      ['PATCH', `/agents/${agent.id}`],
      ['PATCH', `/agents/${agent.id}/policy`],
      ['DELETE', `/agents/${agent.id}`],
      ['POST', `/agents/${agent.id}/device-codes`],
      ['POST', `/agents/${agent.id}/actions/${held.body.id as string}/approve`],
      ['POST', `/agents/${agent.id}/actions/${held.body.id as string}/reject`],
    ] as const) {
      const body = path.endsWith('/policy')
        ? { defaultExecutionMode: 'AUTO' }
        : method === 'PATCH'
          ? { name: 'x' }
          : path.endsWith('reject')
            ? {}
            : undefined;
      const reply = await api.call(method, path, { auth: platformB, ...(body ? { body } : {}) });
      expect([method, path, reply.status]).toEqual([method, path, 404]);
    }
    expect((await api.call('GET', `/agents/approvals?agentId=${encodeURIComponent(agent.id)}`, { auth: platformB })).body.data).toEqual([]);
    expect((await api.call('GET', '/agents', { auth: platformB })).body.data.map((item: { id: string }) => item.id)).not.toContain(
      agent.id,
    );
    // The action is still pending for its own platform.
    expect((await api.call('GET', `/agents/me/actions/${held.body.id as string}`, { auth: agent.bearer })).body.status).toBe(
      'PENDING_APPROVAL',
    );
  });

  it("an action approved through another agent's path is 404", async () => {
    const agent = await connectedAgent(alice, policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const other = await connectedAgent(alice);
    const held = await transferOut(agent.bearer, alice, 100);
    expect((await api.call('POST', `/agents/${other.id}/actions/${held.body.id as string}/approve`, { auth: platformA })).status).toBe(404);
  });
});

describe('agent external accounts', () => {
  it('creates, lists, gets and deletes an external account of its own customer', async () => {
    const agent = await connectedAgent(alice);
    accountCount += 1;
    const created = await api.call('POST', '/agents/me/external-accounts', {
      auth: agent.bearer,
      body: {
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: `7${String(accountCount).padStart(7, '0')}0001`,
          routingNumber: '011000015',
          beneficiary: person,
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.customerId).toBe(alice.customerId);
    expect((await api.call('GET', `/agents/me/external-accounts/${created.body.id as string}`, { auth: agent.bearer })).status).toBe(200);
    expect((await api.call('DELETE', `/agents/me/external-accounts/${created.body.id as string}`, { auth: agent.bearer })).status).toBe(
      204,
    );
  });
});

// Platform token permissions on the 12 management routes. The reference defines VIEW (see all
// data), TRANSACT (send payments) and MANAGE (manage config, tokens and customers) but says no
// more per operation; Corridor reads it so: the reads and a device code's status take any token,
// approve and reject need TRANSACT (approving sends the customer's money), creating, changing,
// deleting an agent or regenerating its code need MANAGE, and redeem takes no credentials. An
// agent that moves money (the policy here holds every permission) also needs TRANSACT to be
// created, have its policy changed or its code reissued (decision 0022): a MANAGE-only token
// gets 403 there. A refused request changes nothing.
describe('platform token permissions on agent management', () => {
  type Row = Record<string, number>;
  const expected = (permission: 'VIEW' | 'TRANSACT' | 'MANAGE'): Row => {
    const manage = permission === 'MANAGE';
    const transact = permission === 'TRANSACT';
    return {
      listAgents: 200,
      listAgentApprovals: 200,
      getAgentById: 200,
      getAgentDeviceCodeStatus: 200,
      createAgent: 403,
      updateAgent: manage ? 200 : 403,
      updateAgentPolicy: 403,
      regenerateAgentDeviceCode: 403,
      approveAgentAction: transact ? 200 : 403,
      rejectAgentAction: transact ? 200 : 403,
      redeemAgentDeviceCode: 200,
      deleteAgent: manage ? 204 : 403,
    };
  };

  it.each([['VIEW'], ['TRANSACT'], ['MANAGE']] as const)('a %s-only token', async (permission) => {
    const created = await api.call('POST', '/tokens', {
      auth: platformA,
      body: { name: `agents-${permission}`, permissions: [permission] },
    });
    expect(created.status).toBe(201);
    const token = { clientId: created.body.clientId as string, clientSecret: created.body.clientSecret as string };
    // An unconnected agent to manage, and a connected one with two actions waiting for approval.
    const managed = await createAgent(alice);
    const acting = await connectedAgent(alice, policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const [toApprove, toReject] = [
      (await transferOut(acting.bearer, alice, 100)).body.id as string,
      (await transferOut(acting.bearer, alice, 100)).body.id as string,
    ];
    const managedBefore = (await api.call('GET', `/agents/${managed.agent.id}`, { auth: platformA })).body;

    const seen: Row = {};
    const as = async (operation: string, method: string, path: string, body?: unknown) => {
      const reply = await api.call(method, path, { auth: token, ...(body !== undefined ? { body } : {}) });
      seen[operation] = reply.status;
      if (reply.status === 403)
        expect(reply.body).toMatchObject({ code: 'FORBIDDEN', details: { requiredPermission: expect.any(String) } });
      return reply;
    };
    await as('listAgents', 'GET', '/agents');
    await as('listAgentApprovals', 'GET', `/agents/approvals?agentId=${encodeURIComponent(acting.id)}`);
    await as('getAgentById', 'GET', `/agents/${managed.agent.id}`);
    await as('getAgentDeviceCodeStatus', 'GET', `/agents/device-codes/${managed.deviceCode.code}/status`);
    await as('createAgent', 'POST', '/agents', { name: 'Permitted', customerId: alice.customerId, policy: policy() });
    await as('updateAgent', 'PATCH', `/agents/${managed.agent.id}`, { name: 'Renamed' });
    await as('updateAgentPolicy', 'PATCH', `/agents/${managed.agent.id}/policy`, { defaultExecutionMode: 'APPROVAL_REQUIRED' });
    const regenerated = await as('regenerateAgentDeviceCode', 'POST', `/agents/${managed.agent.id}/device-codes`);
    await as('approveAgentAction', 'POST', `/agents/${acting.id}/actions/${toApprove}/approve`);
    await as('rejectAgentAction', 'POST', `/agents/${acting.id}/actions/${toReject}/reject`, {});
    const code = regenerated.status === 201 ? (regenerated.body.code as string) : managed.deviceCode.code;
    seen['redeemAgentDeviceCode'] = (await api.call('POST', `/agents/device-codes/${code}/redeem`)).status;
    // What the refusals left alone, read before the delete.
    const managedAfter = (await api.call('GET', `/agents/${managed.agent.id}`, { auth: platformA })).body;
    await as('deleteAgent', 'DELETE', `/agents/${managed.agent.id}`);
    expect(seen).toEqual(expected(permission));

    if (permission !== 'MANAGE') {
      expect({ ...managedAfter, isConnected: false, updatedAt: undefined }).toEqual({ ...managedBefore, updatedAt: undefined });
      expect((await api.call('GET', `/agents/${managed.agent.id}`, { auth: platformA })).status).toBe(200);
      expect(
        (await api.call('GET', `/agents?customerId=${encodeURIComponent(alice.customerId)}&limit=100`, { auth: platformA })).body.data.some(
          (agent: { name: string }) => agent.name === 'Permitted',
        ),
      ).toBe(false);
    }
    if (permission !== 'TRANSACT') {
      const statuses = await Promise.all(
        [toApprove, toReject].map(
          async (id) => (await api.call('GET', `/agents/me/actions/${id}`, { auth: acting.bearer })).body.status as string,
        ),
      );
      expect(statuses).toEqual(['PENDING_APPROVAL', 'PENDING_APPROVAL']);
    }
  });
});

// The permission matrix over HTTP: one agent per permission, every agent route. A route answers
// 403 FORBIDDEN exactly when the agent holds none of the permissions it accepts; otherwise it
// answers whatever the request deserves (201, 200, 404 for an unknown id), never 403.
describe('permission matrix', () => {
  const unknown = (type: string) => `${type}:0196f1a0-0000-7000-8000-00000000f00d`;
  const routes = (): Record<AgentRoute, { method: string; path: string; body?: unknown }> => ({
    getMe: { method: 'GET', path: '/agents/me' },
    listTransactions: { method: 'GET', path: '/agents/me/transactions' },
    getTransaction: { method: 'GET', path: `/agents/me/transactions/${unknown('Transaction')}` },
    listInternalAccounts: { method: 'GET', path: '/agents/me/internal-accounts' },
    createQuote: {
      method: 'POST',
      path: '/agents/me/quotes',
      body: {
        source: { sourceType: 'ACCOUNT', accountId: alice.usd },
        destination: { destinationType: 'ACCOUNT', accountId: alice.euroBank },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    },
    getQuote: { method: 'GET', path: `/agents/me/quotes/${unknown('Quote')}` },
    executeQuote: { method: 'POST', path: `/agents/me/quotes/${unknown('Quote')}/execute` },
    transferIn: {
      method: 'POST',
      path: '/agents/me/transfer-in',
      body: { source: { accountId: alice.bank }, destination: { accountId: alice.usd }, amount: 100 },
    },
    transferOut: {
      method: 'POST',
      path: '/agents/me/transfer-out',
      body: { source: { accountId: alice.usd }, destination: { accountId: alice.bank }, amount: 100 },
    },
    listActions: { method: 'GET', path: '/agents/me/actions' },
    getAction: { method: 'GET', path: `/agents/me/actions/${unknown('AgentAction')}` },
    listExternalAccounts: { method: 'GET', path: '/agents/me/external-accounts' },
    createExternalAccount: {
      method: 'POST',
      path: '/agents/me/external-accounts',
      body: {
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: `8${String((accountCount += 1)).padStart(7, '0')}0001`,
          routingNumber: '011000015',
          beneficiary: person,
        },
      },
    },
    getExternalAccount: { method: 'GET', path: `/agents/me/external-accounts/${unknown('ExternalAccount')}` },
    deleteExternalAccount: { method: 'DELETE', path: `/agents/me/external-accounts/${unknown('ExternalAccount')}` },
  });

  it('an agent that may only execute quotes still reads the quote it executes; one with neither quote permission may not', async () => {
    const agent = await connectedAgent(alice);
    const quote = await api.call('POST', '/agents/me/quotes', {
      auth: agent.bearer,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: alice.usd },
        destination: { destinationType: 'ACCOUNT', accountId: alice.euroBank },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    });
    expect(quote.status).toBe(201);
    const read = async (permissions: string[]) => {
      expect((await api.call('PATCH', `/agents/${agent.id}/policy`, { auth: platformA, body: { permissions } })).status).toBe(200);
      const reply = await api.call('GET', `/agents/me/quotes/${quote.body.id as string}`, { auth: agent.bearer });
      return [reply.status, reply.body.code ?? reply.body.id];
    };
    expect(await read(['EXECUTE_QUOTES'])).toEqual([200, quote.body.id]);
    expect(await read(['CREATE_QUOTES'])).toEqual([200, quote.body.id]);
    expect(await read(['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'MANAGE_EXTERNAL_ACCOUNTS'])).toEqual([403, 'FORBIDDEN']);
    await read(['EXECUTE_QUOTES']);
    expect((await api.call('POST', `/agents/me/quotes/${quote.body.id as string}/execute`, { auth: agent.bearer })).body).toMatchObject({
      status: 'APPROVED',
      quote: { id: quote.body.id },
    });
  });

  it.each(agentPermissions.map((permission) => [permission]))('an agent granted only %s, on every agent route', async (permission) => {
    const agent = await connectedAgent(alice, policy({ permissions: [permission] }));
    const seen: [string, number, string | undefined][] = [];
    for (const [route, call] of Object.entries(routes()) as [AgentRoute, { method: string; path: string; body?: unknown }][]) {
      const reply = await api.call(call.method, call.path, { auth: agent.bearer, ...(call.body ? { body: call.body } : {}) });
      const accepted: readonly string[] | null = agentRoutePermissions[route];
      const expectForbidden = accepted !== null && !accepted.includes(permission);
      seen.push([route, reply.status, reply.body?.code]);
      if (expectForbidden) expect([route, reply.status, reply.body?.code]).toEqual([route, 403, 'FORBIDDEN']);
      else expect([route, reply.status]).not.toEqual([route, 403]);
      expect([route, reply.status < 500]).toEqual([route, true]);
    }
  });
});

// Bad input on every agent route: each refusal is a 4xx with the reference error body and a
// message, and nothing is written — no agent, action or quote record in the agents store, no quote
// in payments, no usage taken, no transaction or external account made for the customer.
describe('bad input on every agent route', () => {
  let agent: { id: string; bearer: string };
  const validCreate = () => ({ name: 'Fuzz', customerId: alice.customerId, policy: policy() });
  const transferBody = () => ({ source: { accountId: alice.usd }, destination: { accountId: alice.bank }, amount: 100 });
  const quoteBody = () => ({
    source: { sourceType: 'ACCOUNT', accountId: alice.usd },
    destination: { destinationType: 'ACCOUNT', accountId: alice.euroBank },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1_000,
  });
  const withPolicy = (change: Record<string, unknown>) => ({ ...validCreate(), policy: { ...policy(), ...change } });
  const withLimits = (change: Record<string, unknown>) =>
    withPolicy({ spendingLimits: { currency: 'USD', perTransactionLimit: 100, ...change } });

  const written = async () => {
    const events = await agentEvents();
    const quotes = (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM payments.quotes')).rows[0]!.n;
    const transactions = (await api.call('GET', '/agents/me/transactions?limit=1', { auth: agent.bearer })).body.totalCount as number;
    const externals = (await api.call('GET', '/agents/me/external-accounts?limit=1', { auth: agent.bearer })).body.totalCount as number;
    return { events, quotes, transactions, externals, usage: (await me(agent.bearer)).usage };
  };

  beforeAll(async () => {
    agent = await connectedAgent(alice);
  });

  const cases = (): [string, string, string, unknown?, (string | null)?][] => [
    ['POST /agents: name a number', 'POST', '/agents', { ...validCreate(), name: 42 }],
    ['POST /agents: name blank', 'POST', '/agents', { ...validCreate(), name: '   ' }],
    ['POST /agents: customerId missing', 'POST', '/agents', { ...validCreate(), customerId: undefined }],
    ['POST /agents: customerId not a customer', 'POST', '/agents', { ...validCreate(), customerId: 'Customer:nope' }],
    ['POST /agents: policy a string', 'POST', '/agents', { ...validCreate(), policy: 'all' }],
    ['POST /agents: unknown permission', 'POST', '/agents', withPolicy({ permissions: ['FLY'] })],
    ['POST /agents: permissions a string', 'POST', '/agents', withPolicy({ permissions: 'CREATE_TRANSFERS' })],
    ['POST /agents: execution mode unknown', 'POST', '/agents', withPolicy({ defaultExecutionMode: 'SOMETIMES' })],
    ['POST /agents: currency lower case', 'POST', '/agents', withLimits({ currency: 'usd' })],
    ['POST /agents: currency unknown', 'POST', '/agents', withLimits({ currency: 'XXX' })],
    ['POST /agents: negative limit', 'POST', '/agents', withLimits({ perTransactionLimit: -1 })],
    ['POST /agents: fractional limit', 'POST', '/agents', withLimits({ perTransactionLimit: 1.5 })],
    ['POST /agents: limit a string', 'POST', '/agents', withLimits({ perTransactionLimit: '100' })],
    ['POST /agents: limit above int64', 'POST', '/agents', withLimits({ dailyLimit: 1e19 })],
    ['POST /agents: threshold without currency', 'POST', '/agents', withPolicy({ approvalThresholds: { amount: 10 } })],
    ['POST /agents: accountRules an object', 'POST', '/agents', withPolicy({ accountRestrictions: { accountRules: { accountId: 'x' } } })],
    ['POST /agents: an extra member', 'POST', '/agents', { ...validCreate(), isPaused: true }],
    ['POST /agents: a list body', 'POST', '/agents', [validCreate()]],
    ['GET /agents: limit 0', 'GET', '/agents?limit=0'],
    ['GET /agents: isPaused maybe', 'GET', '/agents?isPaused=maybe'],
    ['GET /agents: createdAfter not a date', 'GET', '/agents?createdAfter=yesterday'],
    ['GET /agents: cursor forged', 'GET', '/agents?cursor=forged'],
    ['GET /agents/approvals: sortOrder up', 'GET', '/agents/approvals?sortOrder=up'],
    ['GET /agents/{id}: not an id', 'GET', '/agents/42'],
    ['PATCH /agents/{id}: empty', 'PATCH', '/agents/{agent}', {}],
    ['PATCH /agents/{id}: name a number', 'PATCH', '/agents/{agent}', { name: 42 }],
    ['PATCH /agents/{id}: isPaused a string', 'PATCH', '/agents/{agent}', { isPaused: 'yes' }],
    ['PATCH /agents/{id}: an extra member', 'PATCH', '/agents/{agent}', { policy: {} }],
    ['PATCH /agents/{id}/policy: permissions a string', 'PATCH', '/agents/{agent}/policy', { permissions: 'ALL' }],
    ['PATCH /agents/{id}/policy: limit null', 'PATCH', '/agents/{agent}/policy', { spendingLimits: { perTransactionLimit: null } }],
    ['PATCH /agents/{id}/policy: mode null', 'PATCH', '/agents/{agent}/policy', { defaultExecutionMode: null }],
    ['PATCH /agents/{id}/policy: currency unknown', 'PATCH', '/agents/{agent}/policy', { spendingLimits: { currency: 'XXX' } }],
    ['DELETE /agents/{id}: not an id', 'DELETE', '/agents/Agent:nope'],
    ['POST /agents/{id}/device-codes: not an id', 'POST', '/agents/nope/device-codes'],
    ['POST approve: action not an id', 'POST', '/agents/{agent}/actions/nope/approve'],
    [
      'POST reject: reason a number',
      'POST',
      `/agents/{agent}/actions/AgentAction:019542f5-b3e7-1d02-0000-000000000001/reject`,
      { reason: 42 },
    ],
    [
      'POST reject: an extra member',
      'POST',
      `/agents/{agent}/actions/AgentAction:019542f5-b3e7-1d02-0000-000000000001/reject`,
      { reason: 'x', status: 'APPROVED' },
    ],
    ['GET device code status: too long', 'GET', `/agents/device-codes/${'A'.repeat(300)}/status`],
    ['POST redeem: not a code', 'POST', '/agents/device-codes/%E2%80%8B/redeem', undefined, null],
    ['POST transfer-out: amount 0', 'POST', '/agents/me/transfer-out', { ...transferBody(), amount: 0 }],
    ['POST transfer-out: amount negative', 'POST', '/agents/me/transfer-out', { ...transferBody(), amount: -5 }],
    ['POST transfer-out: amount fractional', 'POST', '/agents/me/transfer-out', { ...transferBody(), amount: 1.5 }],
    ['POST transfer-out: amount a string', 'POST', '/agents/me/transfer-out', { ...transferBody(), amount: '100' }],
    ['POST transfer-out: amount missing', 'POST', '/agents/me/transfer-out', { ...transferBody(), amount: undefined }],
    ['POST transfer-out: amount huge', 'POST', '/agents/me/transfer-out', { ...transferBody(), amount: 9e18 }],
    ['POST transfer-out: source missing', 'POST', '/agents/me/transfer-out', { ...transferBody(), source: undefined }],
    ['POST transfer-out: source id a number', 'POST', '/agents/me/transfer-out', { ...transferBody(), source: { accountId: 7 } }],
    [
      'POST transfer-out: source not an account',
      'POST',
      '/agents/me/transfer-out',
      { ...transferBody(), source: { accountId: 'InternalAccount:nope' } },
    ],
    ['POST transfer-out: destination a string', 'POST', '/agents/me/transfer-out', { ...transferBody(), destination: alice.bank }],
    [
      'POST transfer-out: currencies differ',
      'POST',
      '/agents/me/transfer-out',
      { ...transferBody(), destination: { accountId: alice.euroBank } },
    ],
    ['POST transfer-out: an extra member', 'POST', '/agents/me/transfer-out', { ...transferBody(), customerId: bob.customerId }],
    [
      'POST transfer-in: amount 0',
      'POST',
      '/agents/me/transfer-in',
      { source: { accountId: alice.bank }, destination: { accountId: alice.usd }, amount: 0 },
    ],
    [
      'POST transfer-in: wrong way round',
      'POST',
      '/agents/me/transfer-in',
      { source: { accountId: alice.usd }, destination: { accountId: alice.bank }, amount: 100 },
    ],
    ['POST quotes: negative amount', 'POST', '/agents/me/quotes', { ...quoteBody(), lockedCurrencyAmount: -1 }],
    ['POST quotes: immediatelyExecute', 'POST', '/agents/me/quotes', { ...quoteBody(), immediatelyExecute: true }],
    [
      'POST quotes: real-time funding',
      'POST',
      '/agents/me/quotes',
      { ...quoteBody(), source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: alice.customerId } },
    ],
    [
      "POST quotes: another customer's account",
      'POST',
      '/agents/me/quotes',
      { ...quoteBody(), source: { sourceType: 'ACCOUNT', accountId: bob.usd } },
    ],
    ['POST execute: quote not an id', 'POST', '/agents/me/quotes/nope/execute'],
    ['POST execute: unknown quote', 'POST', '/agents/me/quotes/Quote:019542f5-b3e7-1d02-0000-000000000001/execute'],
    ['GET transaction: not an id', 'GET', '/agents/me/transactions/nope'],
    ['GET transaction: unknown', 'GET', '/agents/me/transactions/Transaction:019542f5-b3e7-1d02-0000-000000000001'],
    ['GET transaction: another type of id', 'GET', `/agents/me/transactions/${encodeURIComponent(alice.usd)}`],
    ['GET quote: not an id', 'GET', '/agents/me/quotes/nope'],
    ['GET quote: unknown', 'GET', '/agents/me/quotes/Quote:019542f5-b3e7-1d02-0000-000000000001'],
    ['GET quote: too long', 'GET', `/agents/me/quotes/Quote:${'9'.repeat(300)}`],
    ['GET action: not an id', 'GET', '/agents/me/actions/nope'],
    ['GET action: unknown', 'GET', '/agents/me/actions/AgentAction:019542f5-b3e7-1d02-0000-000000000001'],
    ['GET external accounts: limit 0', 'GET', '/agents/me/external-accounts?limit=0'],
    ['GET external accounts: limit above the maximum', 'GET', '/agents/me/external-accounts?limit=100000'],
    ['GET external accounts: limit not a number', 'GET', '/agents/me/external-accounts?limit=ten'],
    ['GET external accounts: currency lower case', 'GET', '/agents/me/external-accounts?currency=usd'],
    ['GET external accounts: currency not a code', 'GET', '/agents/me/external-accounts?currency=dollars'],
    ['GET external accounts: cursor forged', 'GET', '/agents/me/external-accounts?cursor=forged'],
    ['GET external accounts: customerId filter', 'GET', `/agents/me/external-accounts?customerId=${encodeURIComponent(bob.customerId)}`],
    ['GET external accounts: an unknown filter', 'GET', '/agents/me/external-accounts?owner=PLATFORM'],
    ['GET external account: not an id', 'GET', '/agents/me/external-accounts/nope'],
    ['GET external account: unknown', 'GET', '/agents/me/external-accounts/ExternalAccount:019542f5-b3e7-1d02-0000-000000000001'],
    ['GET external account: an internal account id', 'GET', `/agents/me/external-accounts/${encodeURIComponent(alice.usd)}`],
    ['GET transactions: customerId filter', 'GET', `/agents/me/transactions?customerId=${encodeURIComponent(bob.customerId)}`],
    ['GET transactions: status unknown', 'GET', '/agents/me/transactions?status=SPENT'],
    ['GET actions: status unknown', 'GET', '/agents/me/actions?status=DONE'],
    ['GET internal accounts: customerId filter', 'GET', `/agents/me/internal-accounts?customerId=${encodeURIComponent(bob.customerId)}`],
    ['POST external accounts: accountInfo missing', 'POST', '/agents/me/external-accounts', { currency: 'USD' }],
    [
      'POST external accounts: another customer',
      'POST',
      '/agents/me/external-accounts',
      {
        customerId: bob.customerId,
        currency: 'USD',
        accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '000999000001', routingNumber: '011000015', beneficiary: person },
      },
    ],
    ['DELETE external account: not an id', 'DELETE', '/agents/me/external-accounts/nope'],
  ];

  it('answers every bad request with a 4xx error body and writes nothing', async () => {
    const before = await written();
    for (const [label, method, template, body, auth] of cases()) {
      const path = template.replace('{agent}', agent.id);
      const credentials = auth === null ? undefined : path.startsWith('/agents/me') ? agent.bearer : platformA;
      const reply = await api.call(method, path, {
        ...(credentials ? { auth: credentials } : {}),
        ...(body !== undefined ? { body } : {}),
      });
      expect({ label, status: reply.status >= 400 && reply.status < 500 }).toEqual({ label, status: true });
      expect({ label, body: reply.body }).toEqual({
        label,
        body: expect.objectContaining({ status: reply.status, code: expect.any(String), message: expect.any(String) }),
      });
    }
    expect(await written()).toEqual(before);
  });
});

// Every status the suite saw on an agent operation is one the reference declares for it, or one
// decision 0016 keeps on purpose and lists with its reason ("Statuses the reference does not
// declare"). The 503 of an approve while payments is down (the next describe) is listed there too.
describe('statuses the reference does not declare', () => {
  // 403 where an operation declares none: a token or policy lacking the route's permission, or a paused agent.
  const forbidden = [
    'createAgent',
    'updateAgent',
    'updateAgentPolicy',
    'deleteAgent',
    'regenerateAgentDeviceCode',
    'approveAgentAction',
    'rejectAgentAction',
    'agentListTransactions',
    'agentGetTransaction',
    'agentGetQuote',
    'agentListInternalAccounts',
    'agentListExternalAccounts',
    'agentCreateExternalAccount',
    'agentGetExternalAccount',
    'agentDeleteExternalAccount',
  ];
  const keptOnPurpose: Record<string, number[]> = {
    ...Object.fromEntries(forbidden.map((operationId) => [operationId, [403]])),
    // A filter value the operation cannot apply (an unknown status; a customerId, type or currency it does not take).
    agentListActions: [400],
    agentListInternalAccounts: [400, 403],
  };

  it('answers only declared statuses on agent operations, apart from those decision 0016 lists', () => {
    type Operation = { operationId: string; method: string; pattern: RegExp; literals: number; declared: number[] };
    const document = parseYaml(readFileSync(REFERENCE_OPENAPI_FILE, 'utf8')) as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    };
    const operations: Operation[] = Object.entries(document.paths)
      .filter(([template]) => template.startsWith('/agents'))
      .flatMap(([template, item]) =>
        Object.entries(item)
          .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
          .map(([method, operation]) => {
            const segments = template.split('/').filter(Boolean);
            return {
              operationId: operation.operationId,
              method: method.toUpperCase(),
              pattern: new RegExp(`^/${segments.map((segment) => (segment.startsWith('{') ? '[^/]+' : segment)).join('/')}$`),
              literals: segments.filter((segment) => !segment.startsWith('{')).length,
              declared: Object.keys(operation.responses).map(Number),
            };
          }),
      );
    const undeclared = new Set<string>();
    for (const { method, path, status } of answered) {
      const [operation] = operations
        .filter((candidate) => candidate.method === method && candidate.pattern.test(path))
        .sort((a, b) => b.literals - a.literals);
      if (!operation || operation.declared.includes(status) || keptOnPurpose[operation.operationId]?.includes(status)) continue;
      undeclared.add(`${operation.operationId} ${status}`);
    }
    expect([...undeclared].sort()).toEqual([]);
  });
});

// Last, because it stops services: an approval recorded while payments cannot be reached, and the
// agents service killed before anything retried it, is executed after the restart by the sweep —
// exactly once (the transfer is keyed by the action id).
describe('approval survives a crash before execution', () => {
  it('resumes the execution after the restart and moves the money once', async () => {
    const agent = await connectedAgent(alice, policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const held = await transferOut(agent.bearer, alice, 777);
    expect(held.body.status).toBe('PENDING_APPROVAL');
    const actionId = held.body.id as string;
    await stack.kill('payments');
    // The approval is recorded; payments does not answer, so the platform hears 503 (not a reference answer).
    const approved = await api.call('POST', `/agents/${agent.id}/actions/${actionId}/approve`, { auth: platformA, unchecked: true });
    expect(approved.body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    await stack.kill('agents');
    await stack.start('payments');
    await stack.start('agents');
    const action = await eventually(
      async () =>
        (await api.call('GET', `/agents/me/actions/${actionId}`, { auth: agent.bearer })).body as {
          status: string;
          transaction?: { id: string; agentId: string };
        },
      (current) => current.transaction !== undefined,
      60_000,
    );
    expect(action).toMatchObject({ status: 'APPROVED', transaction: { agentId: agent.id } });
    // A second approve is a 409, and there is one transaction for the action.
    expect((await api.call('POST', `/agents/${agent.id}/actions/${actionId}/approve`, { auth: platformA })).status).toBe(409);
    const transactions = (await api.call('GET', '/agents/me/transactions?limit=100', { auth: agent.bearer })).body.data as {
      agentId?: string;
    }[];
    expect(transactions.filter((transaction) => transaction.agentId === agent.id)).toHaveLength(1);
  }, 180_000);
});
