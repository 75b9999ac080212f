// Customers end to end through the gateway with every app running: the lifecycle a platform
// relies on, paging under concurrent inserts, read-your-writes, idempotent creates and tenancy.
import { Client } from 'pg';
import { forgetIdempotencyRecord } from './support/idempotency';
import { createApi, type Credentials } from './support/api';
import { type Stack, startStack } from './support/stack';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;

const individual = (suffix: string, extra: Record<string, unknown> = {}) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: `cust-${suffix}`,
  region: 'US',
  fullName: `Alice ${suffix}`,
  email: `alice.${suffix}@example.com`,
  birthDate: '1990-01-15',
  nationality: 'US',
  address: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
  ...extra,
});

beforeAll(async () => {
  stack = await startStack();
  api = createApi(stack, 'customers');
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

describe('customer lifecycle', () => {
  it('creates, reads, lists, updates and soft-deletes an individual', async () => {
    const created = await api.call('POST', '/customers', { auth: platformA, body: individual('life') });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      platformCustomerId: 'cust-life',
      customerType: 'INDIVIDUAL',
      kycStatus: 'APPROVED',
      currencies: ['USD'],
      isDeleted: false,
    });
    expect(created.body.id).toMatch(/^Customer:[0-9a-f-]{36}$/);
    expect(created.body.umaAddress).toMatch(/^\$cust-life@/);
    const id = created.body.id as string;

    const read = await api.call('GET', `/customers/${id}`, { auth: platformA });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const updated = await api.call('PATCH', `/customers/${id}`, {
      auth: platformA,
      body: { customerType: 'INDIVIDUAL', email: 'new@example.com' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.email).toBe('new@example.com');
    // Read-your-writes: the GET right after the PATCH sees the change.
    expect((await api.call('GET', `/customers/${id}`, { auth: platformA })).body.email).toBe('new@example.com');

    const listed = await api.call('GET', '/customers?platformCustomerId=cust-life', { auth: platformA });
    expect(listed.body).toMatchObject({ hasMore: false, totalCount: 1, data: [{ id, email: 'new@example.com' }] });

    const deleted = await api.call('DELETE', `/customers/${id}`, { auth: platformA });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id, isDeleted: true });
    expect((await api.call('DELETE', `/customers/${id}`, { auth: platformA })).body).toMatchObject({
      status: 410,
      code: 'CUSTOMER_DELETED',
    });
    expect((await api.call('GET', '/customers?platformCustomerId=cust-life', { auth: platformA })).body.totalCount).toBe(0);
    const withDeleted = await api.call('GET', '/customers?platformCustomerId=cust-life&isIncludingDeleted=true', { auth: platformA });
    expect(withDeleted.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
  });

  it('starts a business UNVERIFIED and generates the ids it was not given', async () => {
    const created = await api.call('POST', '/customers', {
      auth: platformA,
      body: { customerType: 'BUSINESS', businessInfo: { legalName: 'Acme Corp', incorporatedOn: '2015-06-01', taxId: '12-3456789' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ customerType: 'BUSINESS', kybStatus: 'UNVERIFIED', businessInfo: { legalName: 'Acme Corp' } });
    expect(created.body.platformCustomerId).toMatch(/^[0-9a-f]{16}$/);
    expect(created.body.umaAddress).toMatch(/^\$[0-9a-f]{16}@/);
  });

  it('refuses a duplicate platformCustomerId (409) and a taken UMA address (409)', async () => {
    expect((await api.call('POST', '/customers', { auth: platformA, body: individual('dup') })).status).toBe(201);
    const again = await api.call('POST', '/customers', {
      auth: platformA,
      body: individual('dup', { umaAddress: '$other.dup@example.com' }),
    });
    expect(again.body).toMatchObject({ status: 409, code: 'CONFLICT' });
    const sameUma = await api.call('POST', '/customers', {
      auth: platformA,
      body: individual('dup2', { umaAddress: '$cust-dup@' + 'x.example.com' }),
    });
    expect(sameUma.status).toBe(201);
    const taken = await api.call('POST', '/customers', {
      auth: platformA,
      body: individual('dup3', { umaAddress: '$cust-dup@x.example.com' }),
    });
    expect(taken.body).toMatchObject({ status: 409, code: 'UMA_ADDRESS_EXISTS' });
    // Another platform may use the same platformCustomerId: it is unique per platform only.
    expect((await api.call('POST', '/customers', { auth: platformB, body: individual('dup') })).status).toBe(201);
  });

  /** The customers service's stored events of a customer and of the values it claimed, each with its writing transaction. */
  const storedFor = async (customerId: string) => {
    const db = new Client({ connectionString: stack.database.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ stream_id: string; type: string; transaction_id: string }>(
        `SELECT stream_id, type, transaction_id::text FROM customers.events WHERE stream_id = $1 OR data->>'ownerId' = $1
          ORDER BY global_position`,
        [customerId],
      );
      return rows;
    } finally {
      await db.end();
    }
  };

  it('records a new customer and both of its claims in one transaction of the customers service (decision 0053)', async () => {
    const created = await api.call('POST', '/customers', { auth: platformA, body: individual('one-commit') });
    expect(created.status).toBe(201);
    const stored = await storedFor(created.body.id);
    expect(stored.map(({ type }) => type).sort()).toEqual([
      'CustomerCreated',
      'CustomerVerificationStatusChanged',
      'UniqueValueClaimed',
      'UniqueValueClaimed',
    ]);
    expect(new Set(stored.map(({ transaction_id }) => transaction_id)).size).toBe(1);
  });

  it('answers a taken UMA address with the same 409; the refused create keeps no claim, its platformCustomerId stays free', async () => {
    const held = await api.call('POST', '/customers', { auth: platformA, body: individual('uma-held') });
    expect(held.status).toBe(201);
    const refused = await api.call('POST', '/customers', {
      auth: platformA,
      body: individual('uma-refused', { umaAddress: held.body.umaAddress }),
    });
    expect(refused.body).toMatchObject({ status: 409, code: 'UMA_ADDRESS_EXISTS' });
    expect(refused.body.message).toContain(`The UMA address ${held.body.umaAddress} is already taken.`);
    const db = new Client({ connectionString: stack.database.url });
    await db.connect();
    const { rows } = await db
      .query<{ type: string }>(
        `SELECT DISTINCT ON (stream_id) type FROM customers.events WHERE stream_id LIKE 'PlatformCustomerId:%:cust-uma-refused'
          ORDER BY stream_id, stream_position DESC`,
      )
      .finally(() => db.end());
    // No value stays claimed by a customer that was never created: no stream, or one whose last word is a release.
    expect(rows.filter(({ type }) => type !== 'UniqueValueReleased')).toEqual([]);
    const retried = await api.call('POST', '/customers', { auth: platformA, body: individual('uma-refused') });
    expect(retried.status).toBe(201);
  });

  it('filters by type, region, currency and creation time', async () => {
    const before = new Date().toISOString();
    await api.call('POST', '/customers', { auth: platformA, body: individual('mx', { region: 'MX', currencies: ['MXN'] }) });
    const mx = await api.call(
      'GET',
      `/customers?currency=MXN&region=MX&customerType=INDIVIDUAL&createdAfter=${encodeURIComponent(before)}`,
      { auth: platformA },
    );
    expect(mx.body.data.map((c: { platformCustomerId: string }) => c.platformCustomerId)).toEqual(['cust-mx']);
    const none = await api.call('GET', `/customers?currency=MXN&customerType=INDIVIDUAL&createdBefore=${encodeURIComponent(before)}`, {
      auth: platformA,
    });
    expect(none.body.totalCount).toBe(0);
  });
});

describe('paging', () => {
  it('walks 60 customers with no duplicate and no gap while others are being created', async () => {
    const seeded: string[] = [];
    for (let batch = 0; batch < 6; batch += 1) {
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          api.call('POST', '/customers', { auth: platformB, body: individual(`page-${batch}-${index}`) }),
        ),
      );
      replies.forEach((reply) => {
        expect(reply.status).toBe(201);
        seeded.push(reply.body.id);
      });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let concurrent = 0;
    do {
      const page = await api.call('GET', `/customers?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { auth: platformB });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((c: { id: string }) => c.id));
      cursor = page.body.nextCursor;
      expect(Boolean(cursor)).toBe(page.body.hasMore);
      // New customers arrive between pages; they sort before the first page and must not disturb the walk.
      await api.call('POST', '/customers', { auth: platformB, body: individual(`during-${concurrent++}`) });
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => seeded.includes(id)).sort()).toEqual([...seeded].sort());
  });

  it('refuses a cursor it did not issue and a limit out of bounds', async () => {
    expect((await api.call('GET', '/customers?cursor=bm9wZQ', { auth: platformA })).body).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
    });
    expect((await api.call('GET', '/customers?limit=0', { auth: platformA })).status).toBe(400);
    expect((await api.call('GET', '/customers?limit=101', { auth: platformA })).status).toBe(400);
  });
});

describe('tenancy', () => {
  it("never shows platform A's customer to platform B", async () => {
    const created = await api.call('POST', '/customers', { auth: platformA, body: individual('private') });
    const id = created.body.id as string;
    expect((await api.call('GET', `/customers/${id}`, { auth: platformB })).body).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    expect(
      (await api.call('PATCH', `/customers/${id}`, { auth: platformB, body: { customerType: 'INDIVIDUAL', email: 'x@example.com' } }))
        .status,
    ).toBe(404);
    expect((await api.call('DELETE', `/customers/${id}`, { auth: platformB })).status).toBe(404);
    const listed = await api.call('GET', '/customers?platformCustomerId=cust-private&limit=100', { auth: platformB });
    expect(listed.body.data).toEqual([]);
    expect((await api.call('GET', `/customers/${id}`, { auth: platformA })).status).toBe(200);
  });
});

describe('idempotency', () => {
  it('replays the first response for the same key and body, and creates one customer', async () => {
    const headers = { 'idempotency-key': 'create-idem-1' };
    const first = await api.call('POST', '/customers', { auth: platformA, body: individual('idem'), headers });
    const second = await api.call('POST', '/customers', { auth: platformA, body: individual('idem'), headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect((await api.call('GET', '/customers?platformCustomerId=cust-idem', { auth: platformA })).body.totalCount).toBe(1);
  });

  it('creates one customer when two requests with one key race', async () => {
    const headers = { 'idempotency-key': 'create-idem-race' };
    const replies = await Promise.all(
      [1, 2, 3].map(() => api.call('POST', '/customers', { auth: platformA, body: individual('race'), headers })),
    );
    replies.forEach((reply) => expect(reply.status).toBe(201));
    expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(1);
    expect((await api.call('GET', '/customers?platformCustomerId=cust-race', { auth: platformA })).body.totalCount).toBe(1);
  });

  it('answers 409 for the same key with a different body', async () => {
    const headers = { 'idempotency-key': 'create-idem-2' };
    expect((await api.call('POST', '/customers', { auth: platformA, body: individual('idem2'), headers })).status).toBe(201);
    const changed = await api.call('POST', '/customers', { auth: platformA, body: individual('idem3'), headers });
    expect(changed.body).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect((await api.call('GET', '/customers?platformCustomerId=cust-idem3', { auth: platformA })).body.totalCount).toBe(0);
  });

  it('answers a retry whose first answer was lost with the customer the first attempt made, not a 409', async () => {
    // As after a 503 while a replica died: the create went through, the gateway's record of it did not survive.
    const headers = { 'idempotency-key': 'create-idem-lost' };
    const first = await api.call('POST', '/customers', { auth: platformA, body: individual('lost'), headers });
    expect(first.status).toBe(201);
    await forgetIdempotencyRecord(stack, 'create-idem-lost');
    const retry = await api.call('POST', '/customers', { auth: platformA, body: individual('lost'), headers });
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect((await api.call('GET', '/customers?platformCustomerId=cust-lost', { auth: platformA })).body.totalCount).toBe(1);
  });

  it('keeps keys per platform', async () => {
    const headers = { 'idempotency-key': 'shared-key' };
    const a = await api.call('POST', '/customers', { auth: platformA, body: individual('keyed'), headers });
    const b = await api.call('POST', '/customers', { auth: platformB, body: individual('keyed'), headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
  });
});

describe('read model', () => {
  it('rebuilds from zero to rows identical to the live ones', async () => {
    // Runs last in this file, after the other tests wrote, updated and deleted customers.
    const { MikroORM, PostgreSqlDriver } = await import('@mikro-orm/postgresql');
    const { consoleLogger, createPostgresEventStore, ProjectionRunner } = await import('@corridor/event-store');
    const { services } = await import('../scripts/services');
    const { Client } = await import('pg');
    const info = services['customers']!;
    const db = new Client({ connectionString: stack.database.url });
    await db.connect();
    const rows = async () => (await db.query('SELECT * FROM customers.customers ORDER BY id')).rows;
    const store = createPostgresEventStore({ connectionString: stack.database.url, schema: info.schema });
    const orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: stack.database.url,
      schema: info.schema,
      entities: info.projections.map((p) => p.entity),
      discovery: { warnWhenNoEntities: false },
    });
    try {
      await stack.stop('customers'); // nothing may write while the live rows are compared
      const live = await rows();
      expect(live.length).toBeGreaterThan(80);
      await new ProjectionRunner({
        store,
        orm,
        schema: info.schema,
        projections: info.projections,
        logger: consoleLogger('rebuild'),
      }).rebuild('customers');
      expect(await rows()).toEqual(live);
    } finally {
      await orm.close(true);
      await store.close();
      await db.end();
      await stack.start('customers');
    }
  });
});
