// Idempotency-Keys as an adversary (or a careless client) uses them, with every app running
// (decision 0028). A platform and its agents do not share a key's namespace: an agent of customer Y
// that reuses the platform's key never gets customer X's resource, even once the gateway's record is
// gone (forgetIdempotencyRecord stands in for the 24 h expiry or a Redis restart). And every create
// is idempotent at the service, not only in Redis: after the record is gone the same request finds
// what the first made, and another request under the key is a 409, for cards, API tokens,
// beneficial owners, documents, invitations and agent actions. Every answer is checked against the
// reference by the api helper.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createApi, type Credentials, type Reply } from '../support/api';
import { eventually } from '@corridor/testing';
import { forgetIdempotencyRecord } from '../support/idempotency';
import { sharedStack } from '../support/shared-stack';
import type { StackView } from '../support/stack';

let stack: StackView;
let api: ReturnType<typeof createApi>;
let platform: Credentials;

type Customer = { customerId: string; usd: string; umaAddress: string };
let customerX: Customer;
let customerY: Customer;
let customerCount = 0;
let accountCount = 0;

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' };
const PDF = Buffer.concat([
  Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n', 'latin1'),
  Buffer.alloc(600, 0x20),
  Buffer.from('\n%%EOF\n'),
]);
const withKey = (key: string) => ({ 'idempotency-key': key });

const newCustomer = async (): Promise<Customer> => {
  customerCount += 1;
  const created = await api.call('POST', '/customers', {
    auth: platform,
    body: { customerType: 'INDIVIDUAL', fullName: `Ida ${customerCount}`, currencies: ['USD'] },
  });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  const [usd] = await eventually(
    async () =>
      ((await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth: platform })).body.data ??
        []) as { id: string }[],
    (list) => list.length >= 1,
  );
  return { customerId, usd: usd!.id, umaAddress: created.body.umaAddress as string };
};

/** A fresh USD bank account's accountInfo (each call a new account number). */
const bankAccount = () => {
  accountCount += 1;
  return {
    accountType: 'USD_ACCOUNT',
    accountNumber: `7${String(accountCount).padStart(7, '0')}0001`,
    routingNumber: '011000015',
    beneficiary: person,
  };
};

/** An installed agent of the customer with every permission, AUTO, and generous limits. */
const agentOf = async (customer: Customer): Promise<string> => {
  const policy = {
    permissions: ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'],
    defaultExecutionMode: 'AUTO',
    spendingLimits: {
      currency: 'USD',
      perTransactionLimit: 50_000,
      dailyLimit: 500_000,
      dailyTransactionLimit: 1_000,
      monthlyLimit: 5_000_000,
    },
  };
  const created = await api.call('POST', '/agents', {
    auth: platform,
    body: { name: `Agent of ${customer.customerId.slice(-4)}`, customerId: customer.customerId, policy },
  });
  expect(created.status).toBe(201);
  const redeemed = await api.call('POST', `/agents/device-codes/${created.body.deviceCode.code as string}/redeem`);
  expect(redeemed.status).toBe(200);
  return `Bearer ${redeemed.body.accessToken as string}`;
};

/** Sent once, the gateway's record forgotten, sent again: as a retry after the record's 24 h or a Redis restart. */
const sentTwice = async (send: () => Promise<Reply>, key: string): Promise<[Reply, Reply]> => {
  const first = await send();
  await forgetIdempotencyRecord(stack, key);
  return [first, await send()];
};

const expectConflict = (reply: Reply) => {
  expect([reply.status, reply.body.code]).toEqual([409, 'CONFLICT']);
  expect(reply.body.message).toMatch(/Idempotency-Key/);
};

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'abuse-idempotency');
  platform = (await stack.createPlatform()).token as Credentials;
  [customerX, customerY] = await Promise.all([newCustomer(), newCustomer()]);
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

describe('a key belongs to the actor that sent it', () => {
  it("an agent of customer Y reusing the platform's key, once the record is gone, never gets customer X's external account", async () => {
    const key = 'shared-ext-1';
    const platformsAccount = await api.call('POST', '/customers/external-accounts', {
      auth: platform,
      headers: withKey(key),
      body: { customerId: customerX.customerId, currency: 'USD', accountInfo: bankAccount() },
    });
    expect(platformsAccount.status).toBe(201);
    await forgetIdempotencyRecord(stack, key);
    const agentY = await agentOf(customerY);
    const agentsAccount = await api.call('POST', '/agents/me/external-accounts', {
      auth: agentY,
      headers: withKey(key),
      body: { currency: 'USD', accountInfo: bankAccount() },
    });
    // Its own account (or a refusal), never the platform's account of customer X.
    expect([201, 409]).toContain(agentsAccount.status);
    expect(agentsAccount.body.id).not.toBe(platformsAccount.body.id);
    expect(agentsAccount.text).not.toContain(platformsAccount.body.accountInfo.accountNumber as string);
    if (agentsAccount.status === 201) expect(agentsAccount.body.customerId).toBe(customerY.customerId);
  });

  it('two agents of different customers under one key each get their own action', async () => {
    const [agentX, agentY] = await Promise.all([agentOf(customerX), agentOf(customerY)]);
    const fundAndBank = async (customer: Customer) => {
      expect(
        (await api.call('POST', `/sandbox/internal-accounts/${customer.usd}/fund`, { auth: platform, body: { amount: 100_000 } })).status,
      ).toBe(200);
      const bank = await api.call('POST', '/customers/external-accounts', {
        auth: platform,
        body: { customerId: customer.customerId, currency: 'USD', accountInfo: bankAccount() },
      });
      expect(bank.status).toBe(201);
      return bank.body.id as string;
    };
    const [bankX, bankY] = await Promise.all([fundAndBank(customerX), fundAndBank(customerY)]);
    const key = 'agents-shared-1';
    const byX = await api.call('POST', '/agents/me/transfer-out', {
      auth: agentX,
      headers: withKey(key),
      body: { source: { accountId: customerX.usd }, destination: { accountId: bankX }, amount: 100 },
    });
    const byY = await api.call('POST', '/agents/me/transfer-out', {
      auth: agentY,
      headers: withKey(key),
      body: { source: { accountId: customerY.usd }, destination: { accountId: bankY }, amount: 200 },
    });
    expect([byX.status, byY.status]).toEqual([201, 201]);
    expect(byY.body.id).not.toBe(byX.body.id);
    expect([byX.body.customerId, byY.body.customerId]).toEqual([customerX.customerId, customerY.customerId]);
  });

  it("the platform reusing its own key for another customer's account, once the record is gone, is a 409", async () => {
    const key = 'platform-ext-2';
    const body = (customer: Customer) => ({ customerId: customer.customerId, currency: 'USD', accountInfo: bankAccount() });
    const first = await api.call('POST', '/customers/external-accounts', { auth: platform, headers: withKey(key), body: body(customerX) });
    expect(first.status).toBe(201);
    await forgetIdempotencyRecord(stack, key);
    expectConflict(
      await api.call('POST', '/customers/external-accounts', { auth: platform, headers: withKey(key), body: body(customerY) }),
    );
  });
});

// For each create: the same request after the gateway's record is gone is answered with what the
// first made; a different request under the key (the record gone again) is a 409.
describe('creates are idempotent at the service', () => {
  it('cards', async () => {
    const key = 'card-1';
    const body = { cardholderId: customerX.customerId, platformCardId: 'idem-card-1', form: 'VIRTUAL', fundingSources: [customerX.usd] };
    const [first, retry] = await sentTwice(() => api.call('POST', '/cards', { auth: platform, headers: withKey(key), body }), key);
    expect([first.status, retry.status, retry.body.id]).toEqual([201, 201, first.body.id]);
    await forgetIdempotencyRecord(stack, key);
    expectConflict(
      await api.call('POST', '/cards', { auth: platform, headers: withKey(key), body: { ...body, platformCardId: 'idem-card-2' } }),
    );
    const cards = (await api.call('GET', `/cards?cardholderId=${encodeURIComponent(customerX.customerId)}`, { auth: platform })).body
      .data as { platformCardId: string }[];
    expect(cards.filter((card) => card.platformCardId.startsWith('idem-card-'))).toHaveLength(1);
  });

  it('API tokens (a retry comes back without the secret, which still works)', async () => {
    const key = 'token-1';
    const body = { name: 'idempotent token', permissions: ['VIEW'] };
    const [first, retry] = await sentTwice(() => api.call('POST', '/tokens', { auth: platform, headers: withKey(key), body }), key);
    expect([first.status, retry.status, retry.body.id, retry.body.clientId]).toEqual([201, 201, first.body.id, first.body.clientId]);
    expect(retry.body.clientSecret).toBeUndefined();
    const issued = { clientId: first.body.clientId as string, clientSecret: first.body.clientSecret as string };
    expect((await api.call('GET', '/customers', { auth: issued })).status).toBe(200);
    await forgetIdempotencyRecord(stack, key);
    expectConflict(
      await api.call('POST', '/tokens', { auth: platform, headers: withKey(key), body: { ...body, permissions: ['MANAGE'] } }),
    );
    const tokens = (await api.call('GET', '/tokens?limit=100', { auth: platform })).body.data as { name: string }[];
    expect(tokens.filter((token) => token.name === body.name)).toHaveLength(1);
  });

  it('beneficial owners', async () => {
    const business = await api.call('POST', '/customers', {
      auth: platform,
      body: { customerType: 'BUSINESS', businessInfo: { legalName: 'Keyed Holdings', taxId: '12-3456789', incorporatedOn: '2015-06-01' } },
    });
    expect(business.status).toBe(201);
    const personalInfo = {
      firstName: 'Jane',
      lastName: 'Keyed',
      birthDate: '1978-06-15',
      nationality: 'US',
      address: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
      idType: 'SSN',
      identifier: '123-45-6789',
    };
    const body = { customerId: business.body.id as string, roles: ['UBO'], ownershipPercentage: 30, personalInfo };
    const key = 'owner-1';
    const [first, retry] = await sentTwice(
      () => api.call('POST', '/beneficial-owners', { auth: platform, headers: withKey(key), body }),
      key,
    );
    expect([first.status, retry.status, retry.body.id]).toEqual([201, 201, first.body.id]);
    await forgetIdempotencyRecord(stack, key);
    expectConflict(
      await api.call('POST', '/beneficial-owners', { auth: platform, headers: withKey(key), body: { ...body, ownershipPercentage: 40 } }),
    );
    const owners = (await api.call('GET', `/beneficial-owners?customerId=${encodeURIComponent(body.customerId)}`, { auth: platform })).body
      .data as unknown[];
    expect(owners).toHaveLength(1);
  });

  it('documents (a retry keeps the first file and leaves no second one in the store)', async () => {
    const key = 'document-1';
    const fields = { documentHolder: customerX.customerId, documentType: 'PASSPORT', country: 'US' };
    const upload = (documentType = 'PASSPORT') =>
      api.form('POST', '/documents', {
        auth: platform,
        fields: { ...fields, documentType },
        file: { content: PDF, name: 'passport.pdf' },
        headers: withKey(key),
      });
    const stored = async () => (await readdir(join(stack.env['BLOB_DIR']!, 'documents')).catch(() => [])).length;
    const first = await upload();
    const filesAfterFirst = await stored();
    await forgetIdempotencyRecord(stack, key);
    const retry = await upload();
    expect([first.status, retry.status, retry.body.id]).toEqual([201, 201, first.body.id]);
    expect(await stored()).toBe(filesAfterFirst);
    await forgetIdempotencyRecord(stack, key);
    expectConflict(await upload('DRIVERS_LICENSE'));
    const documents = (await api.call('GET', `/documents?documentHolder=${encodeURIComponent(customerX.customerId)}`, { auth: platform }))
      .body.data as unknown[];
    expect(documents).toHaveLength(1);
  });

  it('invitations (the code, a capability, is not derived from the key but found under it)', async () => {
    const key = 'invitation-1';
    const body = { inviterUma: customerX.umaAddress, firstName: 'Bea' };
    const [first, retry] = await sentTwice(() => api.call('POST', '/invitations', { auth: platform, headers: withKey(key), body }), key);
    expect([first.status, retry.status, retry.body.code]).toEqual([201, 201, first.body.code]);
    await forgetIdempotencyRecord(stack, key);
    expectConflict(
      await api.call('POST', '/invitations', { auth: platform, headers: withKey(key), body: { ...body, firstName: 'Other' } }),
    );
    // Another platform's key of the same text names its own invitation.
    const other = (await stack.createPlatform()).token as Credentials;
    const otherInviter = await api.call('POST', '/customers', {
      auth: other,
      body: { customerType: 'INDIVIDUAL', fullName: 'Olga Other', currencies: ['USD'] },
    });
    const theirs = await api.call('POST', '/invitations', {
      auth: other,
      headers: withKey(key),
      body: { inviterUma: otherInviter.body.umaAddress as string },
    });
    expect(theirs.status).toBe(201);
    expect(theirs.body.code).not.toBe(first.body.code);
  });

  it('agent actions', async () => {
    const agent = await agentOf(customerY);
    expect(
      (await api.call('POST', `/sandbox/internal-accounts/${customerY.usd}/fund`, { auth: platform, body: { amount: 100_000 } })).status,
    ).toBe(200);
    const bank = await api.call('POST', '/customers/external-accounts', {
      auth: platform,
      body: { customerId: customerY.customerId, currency: 'USD', accountInfo: bankAccount() },
    });
    const key = 'action-1';
    const transfer = (amount: number) =>
      api.call('POST', '/agents/me/transfer-out', {
        auth: agent,
        headers: withKey(key),
        body: { source: { accountId: customerY.usd }, destination: { accountId: bank.body.id }, amount },
      });
    const [first, retry] = await sentTwice(() => transfer(300), key);
    expect([first.status, retry.status, retry.body.id, retry.body.transaction?.id]).toEqual([
      201,
      201,
      first.body.id,
      first.body.transaction?.id,
    ]);
    await forgetIdempotencyRecord(stack, key);
    expectConflict(await transfer(301));
    const actions = (await api.call('GET', '/agents/me/actions', { auth: agent })).body.data as unknown[];
    expect(actions).toHaveLength(1);
  });
});
