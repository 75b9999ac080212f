// Platform administration end to end: API tokens and their permissions, credentials that stop
// working the moment a token is deleted, and the platform configuration.
import { createApi, type Credentials } from './support/api';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';

let stack: StackView;
let api: ReturnType<typeof createApi>;
let admin: Credentials;
let other: Credentials;

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'platform');
  admin = (await stack.createPlatform()).token as Credentials;
  other = (await stack.createPlatform()).token as Credentials;
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

const newToken = async (name: string, permissions: string[]) => {
  const reply = await api.call('POST', '/tokens', { auth: admin, body: { name, permissions } });
  expect(reply.status).toBe(201);
  return reply.body as { id: string; clientId: string; clientSecret: string };
};

describe('authentication', () => {
  it('answers 401 without credentials, with wrong ones, and with a malformed header', async () => {
    expect((await api.call('GET', '/customers')).body).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect((await api.call('GET', '/customers', { auth: { clientId: admin.clientId, clientSecret: 'wrong' } })).status).toBe(401);
    expect((await api.call('GET', '/customers', { auth: 'Basic !!!' })).status).toBe(401);
    expect((await api.call('GET', '/customers', { auth: 'Bearer not-a-token' })).status).toBe(401);
  });

  it('shows the secret once, and a deleted token is refused at once', async () => {
    const token = await newToken('short lived', ['VIEW']);
    expect(token.clientSecret).toMatch(/^[0-9a-f]{48}$/);
    const creds = { clientId: token.clientId, clientSecret: token.clientSecret };
    expect((await api.call('GET', '/customers', { auth: creds })).status).toBe(200);
    const fetched = await api.call('GET', `/tokens/${token.id}`, { auth: admin });
    expect(fetched.body.clientSecret).toBeUndefined();
    expect((await api.call('DELETE', `/tokens/${token.id}`, { auth: admin })).status).toBe(204);
    expect((await api.call('GET', '/customers', { auth: creds })).status).toBe(401);
    expect((await api.call('GET', `/tokens/${token.id}`, { auth: admin })).body).toMatchObject({ status: 404, code: 'TOKEN_NOT_FOUND' });
  });

  it('lets a VIEW token read but not write (403)', async () => {
    const token = await newToken('viewer', ['VIEW']);
    const viewer = { clientId: token.clientId, clientSecret: token.clientSecret };
    expect((await api.call('GET', '/customers', { auth: viewer })).status).toBe(200);
    expect((await api.call('GET', '/config', { auth: viewer })).status).toBe(200);
    const write = await api.call('POST', '/customers', { auth: viewer, body: { customerType: 'INDIVIDUAL' } });
    expect(write.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await api.call('POST', '/tokens', { auth: viewer, body: { name: 'x', permissions: ['MANAGE'] } })).status).toBe(403);
    expect((await api.call('PATCH', '/config', { auth: viewer, body: { umaDomain: 'x.example.com' } })).status).toBe(403);
  });
});

describe('tokens', () => {
  it('lists with filters and paging, scoped to the platform', async () => {
    for (const index of [1, 2, 3]) await newToken(`listed-${index}`, ['VIEW', 'TRANSACT']);
    const named = await api.call('GET', '/tokens?name=listed-2', { auth: admin });
    expect(named.body).toMatchObject({ totalCount: 1, data: [{ name: 'listed-2', permissions: ['VIEW', 'TRANSACT'] }] });
    const first = await api.call('GET', '/tokens?limit=2', { auth: admin });
    expect(first.body).toMatchObject({ hasMore: true });
    const second = await api.call('GET', `/tokens?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, { auth: admin });
    const ids = [...first.body.data, ...second.body.data].map((t: { id: string }) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    const theirs = await api.call('GET', '/tokens?limit=100', { auth: other });
    expect(theirs.body.data.every((t: { name: string }) => !t.name.startsWith('listed-'))).toBe(true);
    expect((await api.call('GET', `/tokens/${named.body.data[0].id}`, { auth: other })).status).toBe(404);
    expect((await api.call('DELETE', `/tokens/${named.body.data[0].id}`, { auth: other })).status).toBe(404);
  });

  it('refuses a token without name or with an unknown permission', async () => {
    expect((await api.call('POST', '/tokens', { auth: admin, body: { permissions: ['VIEW'] } })).status).toBe(400);
    expect((await api.call('POST', '/tokens', { auth: admin, body: { name: 'x', permissions: ['ROOT'] } })).status).toBe(400);
    expect((await api.call('POST', '/tokens', { auth: admin, body: { name: 'x', permissions: [] } })).status).toBe(400);
  });
});

describe('configuration', () => {
  it('reads and updates the configuration, leaving omitted members unchanged', async () => {
    const before = await api.call('GET', '/config', { auth: admin });
    expect(before.status).toBe(200);
    expect(before.body.supportedCurrencies.map((c: { currencyCode: string }) => c.currencyCode)).toContain('USD');
    const patched = await api.call('PATCH', '/config', { auth: admin, body: { webhookEndpoint: 'https://hooks.example.com/corridor' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ webhookEndpoint: 'https://hooks.example.com/corridor', umaDomain: before.body.umaDomain });
    expect((await api.call('GET', '/config', { auth: admin })).body.webhookEndpoint).toBe('https://hooks.example.com/corridor');
    expect((await api.call('GET', '/config', { auth: other })).body.webhookEndpoint).toBeUndefined();
  });

  it('makes a newly supported currency usable for customers at once', async () => {
    const customer = { customerType: 'INDIVIDUAL', fullName: 'Bruna', currencies: ['BRL'] };
    // Before: the customers service refuses BRL (and has the platform's settings cached).
    expect((await api.call('POST', '/customers', { auth: admin, body: customer })).body).toMatchObject({
      status: 400,
      code: 'INVALID_CURRENCY',
    });
    const current = (await api.call('GET', '/config', { auth: admin })).body;
    const brl = {
      currencyCode: 'BRL',
      minAmount: 100,
      maxAmount: 100000,
      requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }],
      enabledTransactionTypes: ['OUTGOING'],
    };
    const patched = await api.call('PATCH', '/config', {
      auth: admin,
      body: { supportedCurrencies: [...current.supportedCurrencies, brl] },
    });
    expect(patched.body.supportedCurrencies).toContainEqual(brl);
    const created = await api.call('POST', '/customers', { auth: admin, body: customer });
    expect(created.status).toBe(201);
    expect(created.body.currencies).toEqual(['BRL']);
    const refused = await api.call('PATCH', '/config', { auth: admin, body: { supportedCurrencies: [{ ...brl, currencyCode: 'XYZ' }] } });
    expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_CURRENCY' });
  });
});
