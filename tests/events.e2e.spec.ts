// GET /events (extension) with every app running: each service answers for its own store and the
// gateway merges the pages; filters by resource, correlation, type and time; keyset paging with no
// gap or duplicate; and tenancy: another platform's events never appear, an agent sees only its
// customer's, Bearer and Basic stay on their own routes.
import { createApi, type Credentials } from './support/api';
import { paymentHelpers, type Customer } from './support/payments';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';

let stack: StackView;
let api: ReturnType<typeof createApi>;
let pay: ReturnType<typeof paymentHelpers>;
let platformA: Credentials;
let platformB: Credentials;
let alice: Customer;
let bob: Customer;
const correlationId = `events-e2e-${Date.now()}`;

type StoredEvent = {
  id: string;
  type: string;
  resourceId: string;
  service: string;
  occurredAt: string;
  correlationId: string | null;
  causationId: string | null;
  data: Record<string, unknown>;
};
/** A page, or on a refusal the reference error body. */
type Page = {
  data: StoredEvent[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
  status?: number;
  code?: string;
  message?: string;
};

const events = async (
  auth: string | Credentials,
  query: Record<string, string>,
  path = '/events',
): Promise<{ status: number; body: Page }> => api.call('GET', `${path}?${new URLSearchParams(query).toString()}`, { auth });

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'events');
  pay = paymentHelpers(stack, api);
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  const created = await api.call('POST', '/customers', {
    auth: platformA,
    headers: { 'X-Correlation-Id': correlationId },
    body: { customerType: 'INDIVIDUAL', fullName: 'Alice', currencies: ['USD'] },
  });
  expect(created.status).toBe(201);
  alice = { customerId: created.body.id, platformCustomerId: created.body.platformCustomerId, accounts: [] };
  bob = await pay.newCustomer(platformA, ['USD']);
  await pay.newCustomer(platformB, ['USD']);
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

it('follows one story across services by its correlation id, each event with its ids and data', async () => {
  const page = (await events(platformA, { correlationId })).body as Page;
  expect(page.data.map((event) => event.service)).toEqual(expect.arrayContaining(['customers', 'accounts']));
  for (const event of page.data) {
    expect(Object.keys(event).sort()).toEqual([
      'causationId',
      'correlationId',
      'data',
      'id',
      'occurredAt',
      'resourceId',
      'service',
      'type',
    ]);
    expect(event).toMatchObject({
      id: expect.any(String),
      type: expect.any(String),
      resourceId: expect.any(String),
      occurredAt: expect.any(String),
      correlationId,
      data: expect.any(Object),
    });
  }
  expect(page.data.find((event) => event.type === 'CustomerCreated')).toMatchObject({ resourceId: alice.customerId, service: 'customers' });
});

it('filters by resource, type and time range', async () => {
  const ofAlice = (await events(platformA, { resourceId: alice.customerId })).body as Page;
  expect(ofAlice.data.length).toBeGreaterThan(0);
  expect(new Set(ofAlice.data.map((event) => event.resourceId))).toEqual(new Set([alice.customerId]));
  const created = (await events(platformA, { type: 'CustomerCreated' })).body as Page;
  expect(created.data.map((event) => event.resourceId).sort()).toEqual([alice.customerId, bob.customerId].sort());
  expect((await events(platformA, { endDate: '2020-01-01T00:00:00Z' })).body).toMatchObject({ data: [], totalCount: 0, hasMore: false });
  const recent = (await events(platformA, { startDate: new Date(Date.now() - 3_600_000).toISOString(), resourceId: alice.customerId }))
    .body as Page;
  expect(recent.totalCount).toBe(ofAlice.totalCount);
});

it('pages newest first with a cursor, every event once', async () => {
  const whole = (await events(platformA, { limit: '100' })).body as Page;
  const seen: StoredEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = (await events(platformA, { limit: '3', ...(cursor ? { cursor } : {}) })).body as Page;
    expect(page.totalCount).toBe(whole.totalCount);
    seen.push(...page.data);
    cursor = page.hasMore ? page.nextCursor : undefined;
  } while (cursor);
  expect(seen.map((event) => event.id)).toEqual(whole.data.map((event) => event.id));
  expect(new Set(seen.map((event) => event.id)).size).toBe(whole.totalCount);
  const times = seen.map((event) => event.occurredAt);
  expect(times).toEqual([...times].sort().reverse());
});

it('answers bad input with a 400 and the reference error body', async () => {
  const bad: Record<string, string>[] = [{ startDate: 'yesterday' }, { cursor: 'not-ours' }, { limit: '0' }, { type: "x' OR 1=1" }];
  for (const query of bad) {
    const reply = await events(platformA, query);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ status: 400, code: expect.any(String), message: expect.any(String) });
  }
});

describe('tenancy', () => {
  it('never shows another platform’s events, whatever the filter names', async () => {
    expect((await events(platformB, { resourceId: alice.customerId })).body).toMatchObject({ data: [], totalCount: 0 });
    expect((await events(platformB, { correlationId })).body).toMatchObject({ data: [], totalCount: 0 });
    const own = (await events(platformB, { limit: '100' })).body as Page;
    const ofA = new Set((await events(platformA, { limit: '100' })).body.data.map((event) => event.id));
    expect(own.data.length).toBeGreaterThan(0);
    expect(own.data.filter((event) => ofA.has(event.id))).toEqual([]);
  });

  it('shows an agent only its customer’s events, on its own Bearer route', async () => {
    const created = await api.call('POST', '/agents', {
      auth: platformA,
      body: {
        name: 'Watcher',
        customerId: alice.customerId,
        policy: {
          permissions: ['VIEW_TRANSACTIONS'],
          defaultExecutionMode: 'AUTO',
          spendingLimits: { currency: 'USD', perTransactionLimit: 1, dailyLimit: 1, dailyTransactionLimit: 1, monthlyLimit: 1 },
        },
      },
    });
    expect(created.status).toBe(201);
    const redeemed = await api.call('POST', `/agents/device-codes/${created.body.deviceCode.code as string}/redeem`);
    const bearer = `Bearer ${redeemed.body.accessToken as string}`;

    const mine = (await events(bearer, { limit: '100' }, '/agents/me/events')).body as Page;
    expect(mine.data.some((event) => event.type === 'CustomerCreated' && event.resourceId === alice.customerId)).toBe(true);
    for (const event of mine.data)
      expect(event.resourceId === alice.customerId || JSON.stringify(event.data).includes(alice.customerId)).toBe(true);
    expect((await events(bearer, { resourceId: bob.customerId }, '/agents/me/events')).body).toMatchObject({ data: [], totalCount: 0 });

    expect((await events(bearer, {})).status).toBe(401);
    expect((await events(platformA, {}, '/agents/me/events')).status).toBe(401);
  });
});
