// Attacks on platform authentication, tokens and grants (issue 21, decision 0022), one test per
// attack, each written to fail on the code before the defence: a wrong-secret burst from one
// address, a wrong-secret flood against one client id while another platform's new token
// authenticates, unknown client ids that would cost nothing, unbounded token creation, a MANAGE
// token minting TRANSACT, a MANAGE token creating (or redeeming into) an agent that moves money,
// and a platform multiplying its rate limit with more tokens.
import { randomBytes } from 'node:crypto';
import { createApi, type Credentials } from '../support/api';
import { waitUntil } from '@corridor/testing';
import { type Stack, startStack } from '../support/stack';

const FAILURES_MAX = 10;
const TOKENS_MAX = 5;
const TOKEN_REQUESTS_MAX = 50;
const PLATFORM_REQUESTS_MAX = 60;
const FLOOD_REQUESTS = 200;

let stack: Stack;
let api: ReturnType<typeof createApi>;

beforeAll(async () => {
  stack = await startStack({
    env: {
      // The suite stands in for clients at many addresses behind one proxy on loopback.
      TRUST_PROXY: '127.0.0.1',
      AUTH_FAILURES_PER_ADDRESS: String(FAILURES_MAX),
      AUTH_FAILURES_PER_CLIENT: String(FAILURES_MAX),
      AUTH_FAILURE_WINDOW_SECONDS: '60',
      RATE_LIMIT_REQUESTS: String(TOKEN_REQUESTS_MAX),
      RATE_LIMIT_PLATFORM_REQUESTS: String(PLATFORM_REQUESTS_MAX),
      RATE_LIMIT_WINDOW_SECONDS: '60',
      PLATFORM_TOKENS_MAX: String(TOKENS_MAX),
      // A verification stuck behind a flood of scrypts answers 503 instead of passing late.
      REQUEST_TIMEOUT_MS: '2500',
      // Light on PostgreSQL connections: the machine's server is shared by several stacks.
      DATABASE_POOL_SIZE: '4',
    },
  });
  api = createApi(stack, 'abuse-auth');
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

const newPlatform = async (): Promise<Credentials> => (await stack.createPlatform()).token as Credentials;
const from = (address: string) => ({ 'x-forwarded-for': address });
const wrongSecret = () => randomBytes(24).toString('hex');
const newToken = async (auth: Credentials, permissions: string[]) => {
  const reply = await api.call('POST', '/tokens', { auth, body: { name: `t-${randomBytes(3).toString('hex')}`, permissions } });
  expect(reply.status).toBe(201);
  return reply.body as { id: string; clientId: string; clientSecret: string };
};
const metric = async (url: string, name: string): Promise<number> => {
  const text = await (await fetch(url)).text();
  const values = text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .map((line) => Number(line.split(' ').pop()));
  return values.reduce((sum, value) => sum + value, 0);
};

describe('failed authentications', () => {
  it('refuses a burst of wrong secrets from one address with 429 and Retry-After, before the platform service', async () => {
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof api.call>> | undefined;
    for (let attempt = 0; attempt < FAILURES_MAX + 5; attempt += 1) {
      const clientId = randomBytes(16).toString('hex');
      const reply = await api.call('GET', '/customers', { auth: { clientId, clientSecret: wrongSecret() }, headers: from('203.0.113.7') });
      statuses.push(reply.status);
      if (reply.status === 429) limited = reply;
    }
    expect(statuses.slice(0, FAILURES_MAX)).toEqual(Array(FAILURES_MAX).fill(401));
    expect(statuses.slice(FAILURES_MAX)).toEqual(Array(5).fill(429));
    expect(limited?.body).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited?.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Another address is not held back by this one's failures.
    const platform = await newPlatform();
    expect((await api.call('GET', '/customers', { auth: platform, headers: from('198.51.100.9') })).status).toBe(200);
    expect(
      await metric(`${stack.gatewayMetricsUrl}/metrics`, 'corridor_gateway_auth_limited_total{scope="address"}'),
    ).toBeGreaterThanOrEqual(5);
  });

  it("authenticates another platform's new token while one client id is flooded with wrong secrets", async () => {
    const attacked = await newPlatform();
    // The attacked platform works before the flood, so its credential is one that verified before.
    expect((await api.call('GET', '/customers', { auth: attacked, headers: from('192.0.2.51') })).status).toBe(200);
    const victim = await newToken(await newPlatform(), ['VIEW']);
    // Many addresses, one known client id: each request would cost the platform service a scrypt.
    const flood = Array.from({ length: FLOOD_REQUESTS }, (_, index) =>
      api.call('GET', '/customers', {
        auth: { clientId: attacked.clientId, clientSecret: wrongSecret() },
        headers: from(`10.1.${index >> 8}.${index & 255}`),
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const honest = await api.call('GET', '/customers', { auth: victim, headers: from('192.0.2.50') });
    const answers = await Promise.all(flood);
    expect(honest.status).toBe(200);
    // The flood is refused (401 verified wrong, 429 limited, 503 when the service is saturated); never let in, never a 500.
    const floodStatuses = [...new Set(answers.map((reply) => reply.status))].sort();
    expect(floodStatuses.filter((status) => ![401, 429, 503].includes(status))).toEqual([]);
    // The attacked platform's own credential, which verified before the flood, is not locked out either.
    expect((await api.call('GET', '/customers', { auth: attacked, headers: from('192.0.2.51') })).status).toBe(200);
  });

  it('makes an unknown client id cost one secret verification, like a known one', async () => {
    const platformMetrics = stack.healthUrl('platform').replace(/\/health$/, '/metrics');
    // The flood of the test before may still be draining through the verification queue.
    const idle = async () =>
      (await metric(platformMetrics, 'corridor_platform_auth_verify_running')) +
        (await metric(platformMetrics, 'corridor_platform_auth_verify_queued')) ===
      0;
    await waitUntil('the platform service to finish earlier verifications', idle);
    const before = await metric(platformMetrics, 'corridor_platform_auth_verifications_total{outcome="invalid"}');
    const reply = await api.call('GET', '/customers', {
      auth: { clientId: randomBytes(16).toString('hex'), clientSecret: wrongSecret() },
      headers: from('192.0.2.60'),
    });
    expect(reply.status).toBe(401);
    expect(await metric(platformMetrics, 'corridor_platform_auth_verifications_total{outcome="invalid"}')).toBe(before + 1);
  });
});

describe('tokens', () => {
  it(`caps a platform at ${TOKENS_MAX} live tokens, even when they are created at once`, async () => {
    const admin = await newPlatform();
    const attempts = await Promise.all(
      Array.from({ length: TOKENS_MAX + 3 }, (_, index) =>
        api.call('POST', '/tokens', { auth: admin, body: { name: `burst-${index}`, permissions: ['VIEW'] } }),
      ),
    );
    const created = attempts.filter((reply) => reply.status === 201);
    // The bootstrap token holds one slot.
    expect(created).toHaveLength(TOKENS_MAX - 1);
    const refused = attempts.find((reply) => reply.status !== 201);
    expect(refused?.body).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(refused?.body.message).toContain('DELETE /tokens/{tokenId}');
    expect((await api.call('DELETE', `/tokens/${created[0]!.body.id}`, { auth: admin })).status).toBe(204);
    expect((await api.call('POST', '/tokens', { auth: admin, body: { name: 'after delete', permissions: ['VIEW'] } })).status).toBe(201);
  });

  it('lets a MANAGE token create tokens only with permissions it holds', async () => {
    const admin = await newPlatform();
    const manager = await newToken(admin, ['MANAGE']);
    const minted = await api.call('POST', '/tokens', { auth: manager, body: { name: 'escalated', permissions: ['VIEW', 'TRANSACT'] } });
    expect(minted.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(minted.body.message).toContain('TRANSACT');
    expect((await api.call('POST', '/tokens', { auth: manager, body: { name: 'reader', permissions: ['VIEW', 'MANAGE'] } })).status).toBe(
      201,
    );
  });

  it('limits a platform as a whole, however many tokens it spreads its requests over', async () => {
    const admin = await newPlatform();
    const tokens = [await newToken(admin, ['VIEW']), await newToken(admin, ['VIEW']), await newToken(admin, ['VIEW'])];
    const perToken = Math.floor(PLATFORM_REQUESTS_MAX / 2);
    expect(perToken).toBeLessThan(TOKEN_REQUESTS_MAX);
    const replies = [];
    for (let round = 0; round < perToken; round += 1) {
      replies.push(...(await Promise.all(tokens.map((auth) => api.call('GET', '/config', { auth })))));
    }
    const limited = replies.filter((reply) => reply.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.body).toMatchObject({ status: 429, code: 'RATE_LIMITED', details: { limit: 'requests-per-platform' } });
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another platform is untouched.
    expect((await api.call('GET', '/config', { auth: await newPlatform() })).status).toBe(200);
  });
});

describe('agent grants', () => {
  const moneyPolicy = {
    permissions: ['CREATE_TRANSFERS', 'VIEW_TRANSACTIONS'],
    defaultExecutionMode: 'AUTO',
    spendingLimits: { currency: 'USD', perTransactionLimit: 50_000 },
  };
  const readerPolicy = { ...moneyPolicy, permissions: ['VIEW_TRANSACTIONS'] };

  it('refuses a MANAGE token an agent that moves money, a device code for one, and a redeem into one', async () => {
    const admin = await newPlatform();
    const manager = await newToken(admin, ['VIEW', 'MANAGE']);
    const customer = await api.call('POST', '/customers', {
      auth: admin,
      body: { customerType: 'INDIVIDUAL', fullName: 'Grace Hopper', currencies: ['USD'] },
    });
    expect(customer.status).toBe(201);
    const customerId = customer.body.id as string;

    const direct = await api.call('POST', '/agents', { auth: manager, body: { name: 'Drainer', customerId, policy: moneyPolicy } });
    expect(direct.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });

    // A money agent made by a TRANSACT token: a MANAGE token may not have its device code reissued.
    const moneyAgent = await api.call('POST', '/agents', { auth: admin, body: { name: 'Payroll', customerId, policy: moneyPolicy } });
    expect(moneyAgent.status).toBe(201);
    expect((await api.call('POST', `/agents/${moneyAgent.body.agent.id}/device-codes`, { auth: manager })).body).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
    });

    // A reader made by the MANAGE token, then given money permissions by a TRANSACT token: the MANAGE-issued code does not redeem into it.
    const reader = await api.call('POST', '/agents', { auth: manager, body: { name: 'Reader', customerId, policy: readerPolicy } });
    expect(reader.status).toBe(201);
    expect(
      (await api.call('PATCH', `/agents/${reader.body.agent.id}/policy`, { auth: manager, body: { permissions: moneyPolicy.permissions } }))
        .status,
    ).toBe(403);
    expect(
      (await api.call('PATCH', `/agents/${reader.body.agent.id}/policy`, { auth: admin, body: { permissions: moneyPolicy.permissions } }))
        .status,
    ).toBe(200);
    const redeemed = await api.call('POST', `/agents/device-codes/${reader.body.deviceCode.code}/redeem`);
    expect(redeemed.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(redeemed.body.accessToken).toBeUndefined();
  });
});
