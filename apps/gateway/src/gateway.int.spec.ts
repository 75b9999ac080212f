// Pins down the gateway's edge behaviour against real NATS and Redis, with tiny fake services
// behind it: authentication and permissions, the error body for every kind of bad request,
// idempotency, rate limiting, and what a client sees when a service is down.
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type CreateCustomerData,
  DomainError,
  newId,
  type ServiceRequest,
  subjects,
  type VerifiedCredential,
  type VerifyCredentialData,
} from '@corridor/contracts';
import { createServiceApp, ServiceClient } from '@corridor/messaging';
import { requireNats, requireRedis, uniqueRedisPrefix, uniqueSubjectPrefix } from '@corridor/testing';
import { currentContext, type TelemetryContext } from '@corridor/telemetry';
import Redis from 'ioredis';
import { loadConfig, type GatewayConfig } from './config';
import { createGateway } from './create-gateway';
import { MetricsServer } from './http/metrics-server';

/** The request context each customers.list handler ran in. */
const listContexts: (TelemetryContext | undefined)[] = [];
const calls = { verify: 0, create: 0, list: [] as unknown[], deleted: [] as string[], seenContexts: [] as unknown[] };

const TRANSACT_TOKEN = 'Token:0196f1a0-0000-7000-8000-0000000000aa';

const credentials: Record<string, VerifiedCredential> = {
  'admin:admin-secret': {
    platformId: 'Platform:one',
    tokenId: 'Token:admin',
    permissions: ['VIEW', 'TRANSACT', 'MANAGE'],
    environment: 'SANDBOX',
  },
  'viewer:viewer-secret': { platformId: 'Platform:one', tokenId: 'Token:viewer', permissions: ['VIEW'], environment: 'SANDBOX' },
  'transact:transact-secret': { platformId: 'Platform:one', tokenId: TRANSACT_TOKEN, permissions: ['TRANSACT'], environment: 'SANDBOX' },
};

@Controller()
class FakePlatform {
  @MessagePattern(subjects.platform.auth.verify)
  async verify(@Payload() request: ServiceRequest<VerifyCredentialData>): Promise<VerifiedCredential> {
    calls.verify += 1;
    // As slow as a real scrypt verification, so concurrent attempts overlap.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const credential = credentials[`${request.data.clientId}:${request.data.clientSecret}`];
    if (!credential) throw new DomainError('UNAUTHORIZED', 'unauthorized', 'The API credentials are not valid.');
    return credential;
  }

  @MessagePattern(subjects.platform.token.delete)
  delete(@Payload() request: ServiceRequest<{ tokenId: string }>) {
    calls.deleted.push(request.data.tokenId);
    return {};
  }
}

@Controller()
class FakeCustomers {
  @MessagePattern(subjects.customers.customer.create)
  async create(@Payload() request: ServiceRequest<CreateCustomerData>) {
    calls.create += 1;
    calls.seenContexts.push(request.context);
    // Slow enough that a concurrent duplicate arrives while this one is still running.
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (request.data.platformCustomerId === 'taken')
      throw new DomainError('CONFLICT', 'conflict', 'platformCustomerId taken is already used.');
    return { id: newId('Customer'), ...request.data, createdAt: '2026-01-01T00:00:00.000Z' };
  }

  @MessagePattern(subjects.customers.customer.list)
  list(@Payload() request: ServiceRequest<unknown>) {
    calls.list.push(request.data);
    listContexts.push(currentContext());
    return { data: [], hasMore: false, totalCount: 0 };
  }

  @MessagePattern(subjects.customers.customer.get)
  get(@Payload() request: ServiceRequest<{ customerId: string }>) {
    throw new DomainError('USER_NOT_FOUND', 'not_found', `Customer ${request.data.customerId} was not found.`);
  }
}

@Module({ controllers: [FakePlatform] })
class FakePlatformModule {}

@Module({ controllers: [FakeCustomers] })
class FakeCustomersModule {}

/** Answers only its health ping, which createServiceApp adds for every service. */
@Module({})
class FakeAccountsModule {}

/** Answers its health ping and nothing else. */
@Module({})
class FakeWebhooksModule {}

/** Answers its health ping and nothing else. */
@Module({})
class FakePaymentsModule {}

/** Answers its health ping and nothing else. */
@Module({})
class FakeCardsModule {}

/** Answers its health ping and nothing else. */
@Module({})
class FakeAgentsModule {}

const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
const admin = basic('admin', 'admin-secret');
const viewer = basic('viewer', 'viewer-secret');

const individual = (overrides: Record<string, unknown> = {}) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: 'p-1',
  region: 'US',
  fullName: 'Ada Lovelace',
  email: 'ada@example.com',
  birthDate: '1990-01-15',
  nationality: 'GB',
  address: { line1: '1 Main St', postalCode: '62701', country: 'US' },
  ...overrides,
});

type Call = {
  method?: string;
  path: string;
  auth?: string | null;
  body?: unknown;
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
};

let subjectPrefix: string;
let config: GatewayConfig;
let gateway: NestFastifyApplication;
let platform: INestMicroservice;
let customers: INestMicroservice | undefined;
let accounts: INestMicroservice;
let webhooks: INestMicroservice;
let payments: INestMicroservice;
let cards: INestMicroservice;
let agents: INestMicroservice;
let client: ServiceClient;
let redis: Redis;

const send = async (app: NestFastifyApplication, call: Call) => {
  const headers: Record<string, string> = { ...call.headers };
  if (call.auth !== null) headers['authorization'] = call.auth ?? admin;
  const payload = call.raw ?? (call.body !== undefined ? JSON.stringify(call.body) : undefined);
  if (payload !== undefined) headers['content-type'] = call.contentType ?? 'application/json';
  const response = await app.inject({
    method: (call.method ?? 'GET') as 'GET',
    url: call.path,
    headers,
    ...(payload !== undefined ? { payload } : {}),
  });
  return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
};
const api = (call: Call) => send(gateway, { ...call, path: `/2025-10-13${call.path}` });

const expectError = (reply: { status: number; body: { details?: unknown } | undefined }, status: number, code: string) => {
  expect(reply.body).toEqual({
    status,
    code,
    message: expect.any(String),
    ...(reply.body?.details ? { details: expect.any(Object) } : {}),
  });
  expect(reply.status).toBe(status);
};

beforeAll(async () => {
  const natsUrl = await requireNats();
  const redisUrl = await requireRedis();
  subjectPrefix = uniqueSubjectPrefix();
  const options = { natsUrl, subjectPrefix, logLevel: 'silent' };
  platform = await createServiceApp(FakePlatformModule, { service: 'platform', ...options });
  await platform.listen();
  customers = await createServiceApp(FakeCustomersModule, { service: 'customers', ...options });
  await customers.listen();
  accounts = await createServiceApp(FakeAccountsModule, { service: 'accounts', ...options });
  await accounts.listen();
  webhooks = await createServiceApp(FakeWebhooksModule, { service: 'webhooks', ...options });
  await webhooks.listen();
  payments = await createServiceApp(FakePaymentsModule, { service: 'payments', ...options });
  await payments.listen();
  cards = await createServiceApp(FakeCardsModule, { service: 'cards', ...options });
  await cards.listen();
  agents = await createServiceApp(FakeAgentsModule, { service: 'agents', ...options });
  await agents.listen();
  config = {
    ...loadConfig({}),
    // No metrics server unless a test asks for one (port 0: any free port).
    metricsPort: undefined,
    natsUrl,
    redisUrl,
    subjectPrefix,
    redisKeyPrefix: uniqueRedisPrefix(),
    rateLimitRequests: 1000,
    authCacheTtlSeconds: 60,
    logLevel: 'silent',
  };
  gateway = await createGateway(config);
  client = new ServiceClient({ natsUrl, subjectPrefix, name: 'test' });
  await client.onApplicationBootstrap();
  redis = new Redis(redisUrl);
});

afterAll(async () => {
  await gateway?.close();
  await client?.close();
  await platform?.close();
  await customers?.close();
  await accounts?.close();
  await webhooks?.close();
  await payments?.close();
  await cards?.close();
  await agents?.close();
  if (redis) {
    const keys = await redis.keys(`${config.redisKeyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
});

describe('authentication and permissions', () => {
  it('answers 401 without, with malformed and with wrong credentials', async () => {
    expectError(await api({ path: '/customers', auth: null }), 401, 'UNAUTHORIZED');
    expectError(await api({ path: '/customers', auth: 'Basic !!!' }), 401, 'UNAUTHORIZED');
    expectError(await api({ path: '/customers', auth: basic('admin', 'wrong') }), 401, 'UNAUTHORIZED');
    expectError(await api({ path: '/customers', auth: 'Digest abc' }), 401, 'UNAUTHORIZED');
  });

  it('answers 401 for a Bearer (agent) token on a platform route', async () => {
    const reply = await api({ path: '/customers', auth: 'Bearer some-agent-token' });
    expectError(reply, 401, 'UNAUTHORIZED');
    expect(reply.body.message).toMatch(/works only on \/agents\/me routes/i);
  });

  it('lets any token read but only MANAGE write', async () => {
    expect((await api({ path: '/customers', auth: viewer })).status).toBe(200);
    expect((await api({ path: '/customers', auth: basic('transact', 'transact-secret') })).status).toBe(200);
    expectError(await api({ method: 'POST', path: '/customers', auth: viewer, body: individual() }), 403, 'FORBIDDEN');
    expectError(
      await api({ method: 'DELETE', path: `/tokens/${newId('Token')}`, auth: basic('transact', 'transact-secret') }),
      403,
      'FORBIDDEN',
    );
  });

  it('verifies a credential once and forgets it when its token is revoked', async () => {
    const before = calls.verify;
    await api({ path: '/customers', auth: viewer });
    await api({ path: '/customers', auth: viewer });
    expect(calls.verify).toBe(before);
    await client.broadcast(subjects.platform.tokenRevoked, { tokenId: 'Token:viewer' });
    const deadline = Date.now() + 5_000;
    while (calls.verify === before && Date.now() < deadline) {
      await api({ path: '/customers', auth: viewer });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(calls.verify).toBe(before + 1);
  });

  it('evicts the credentials of a token it deleted', async () => {
    const transact = basic('transact', 'transact-secret');
    await api({ path: '/customers', auth: transact });
    await api({ path: '/customers' });
    const before = calls.verify;
    // The fake platform does not broadcast, so only the gateway's own eviction can matter here.
    expect((await api({ method: 'DELETE', path: `/tokens/${TRANSACT_TOKEN}` })).status).toBe(204);
    expect(calls.deleted).toContain(TRANSACT_TOKEN);
    await api({ path: '/customers' });
    expect(calls.verify).toBe(before);
    await api({ path: '/customers', auth: transact });
    expect(calls.verify).toBe(before + 1);
  });

  it('passes the request context and echoes X-Request-Id', async () => {
    const reply = await api({
      method: 'POST',
      path: '/customers',
      body: individual({ platformCustomerId: 'ctx' }),
      headers: { 'x-request-id': 'client-req-1', 'x-correlation-id': 'flow-9' },
    });
    expect(reply.status).toBe(201);
    expect(reply.headers['x-request-id']).toBe('client-req-1');
    expect(calls.seenContexts[calls.seenContexts.length - 1]).toEqual({
      platformId: 'Platform:one',
      actor: { kind: 'token', tokenId: 'Token:admin' },
      requestId: 'client-req-1',
      correlationId: 'flow-9',
      causationId: 'client-req-1',
    });
    expect(reply.headers['x-correlation-id']).toBe('flow-9');
    const generated = await api({ path: '/customers', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.headers['x-correlation-id']).toBe(generated.headers['x-request-id']);
  });
});

describe('request context and metrics over a real socket', () => {
  let served: NestFastifyApplication;
  let baseUrl: string;
  let metricsUrl: string;
  const scrape = async () => (await fetch(`${metricsUrl}/metrics`)).text();
  const sample = (text: string, series: string): number => {
    const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };

  beforeAll(async () => {
    served = await createGateway({ ...config, redisKeyPrefix: uniqueRedisPrefix(), metricsPort: 0 });
    await served.listen(0, '127.0.0.1');
    baseUrl = await served.getUrl();
    metricsUrl = served.get(MetricsServer).url!;
  });

  afterAll(async () => {
    await served?.close();
  });

  it('runs the request in its context: the service sees its correlation, the request as cause and the platform', async () => {
    const reply = await fetch(`${baseUrl}/2025-10-13/customers`, { headers: { authorization: admin, 'x-correlation-id': 'flow-http-1' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-correlation-id')).toBe('flow-http-1');
    const requestId = reply.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(listContexts[listContexts.length - 1]).toEqual({
      requestId,
      correlationId: 'flow-http-1',
      causationId: requestId,
      platformId: 'Platform:one',
    });
  });

  it('serves /metrics on its own port only: HTTP by route template and status, NATS requests, idempotency outcomes', async () => {
    const route = '/2025-10-13/customers/:customerId';
    const series = `corridor_http_request_duration_seconds_count{method="GET",route="${route}",status="404"}`;
    const before = sample(await scrape(), series);
    for (const id of ['Customer:a', 'Customer:b'])
      expect((await fetch(`${baseUrl}/2025-10-13/customers/${id}`, { headers: { authorization: admin } })).status).toBe(404);
    const body = {
      method: 'POST',
      headers: { authorization: admin, 'content-type': 'application/json', 'idempotency-key': 'metrics-key' },
      body: JSON.stringify(individual({ platformCustomerId: 'metrics' })),
    };
    expect((await fetch(`${baseUrl}/2025-10-13/customers`, body)).status).toBe(201);
    expect((await fetch(`${baseUrl}/2025-10-13/customers`, body)).status).toBe(201);
    expect((await fetch(`${baseUrl}/no/such/path`)).status).toBe(404);
    const text = await scrape();
    expect(sample(text, series) - before).toBe(2);
    expect(
      sample(text, 'corridor_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'corridor_gateway_idempotency_total{outcome="claimed"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'corridor_gateway_idempotency_total{outcome="replay"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^corridor_nats_request_duration_seconds_count\{subject="customers\.customer\.create",outcome="ok"\} [1-9]/m);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect((await fetch(`${baseUrl}/metrics`)).status).toBe(404);
  });
});

describe('routing errors', () => {
  it('answers 404 REFERENCE_NOT_FOUND for unknown routes and unsupported versions', async () => {
    expectError(await api({ path: '/no-such-thing' }), 404, 'REFERENCE_NOT_FOUND');
    const version = await send(gateway, { path: '/2024-01-01/customers' });
    expectError(version, 404, 'REFERENCE_NOT_FOUND');
    expect(version.body.details).toEqual({ supportedVersions: ['2025-10-13'] });
    expect(version.body.message).toContain('2025-10-13');
  });

  it('says an operation under the base path is not one this server supports, and where to look', async () => {
    const unsupported = await api({ path: '/stablecoin-provider-accounts' });
    expectError(unsupported, 404, 'REFERENCE_NOT_FOUND');
    expect(unsupported.body.message).toBe(
      'GET /2025-10-13/stablecoin-provider-accounts is not an operation this Corridor server supports. Supported operations are listed ' +
        'at /docs.',
    );
    const outside = await send(gateway, { path: '/customers' });
    expectError(outside, 404, 'REFERENCE_NOT_FOUND');
    expect(outside.body.message).toBe('There is no route GET /customers. Paths start with /2025-10-13.');
  });

  it('answers 405 with an Allow header for a known path and a wrong method', async () => {
    const reply = await api({ method: 'PUT', path: '/customers', body: {} });
    expectError(reply, 405, 'METHOD_NOT_ALLOWED');
    expect(reply.headers['allow']).toBe('GET, POST');
  });

  it('answers 404 with the resource code for malformed ids', async () => {
    expectError(await api({ path: '/customers/not-an-id' }), 404, 'USER_NOT_FOUND');
    expectError(await api({ path: `/customers/${newId('Token')}` }), 404, 'USER_NOT_FOUND');
    expectError(await api({ method: 'DELETE', path: '/tokens/Token:123' }), 404, 'TOKEN_NOT_FOUND');
    expectError(await api({ path: `/customers/${newId('Customer')}` }), 404, 'USER_NOT_FOUND');
  });
});

describe('validation', () => {
  const post = (body: unknown) => api({ method: 'POST', path: '/customers', raw: JSON.stringify(body) });

  it.each([
    ['a missing customerType', { ...individual(), customerType: undefined }, 'customerType'],
    ['a wrongly typed field', individual({ fullName: 42 }), 'fullName'],
    ['an unknown enum value', individual({ kycStatus: 'MAYBE' }), 'kycStatus'],
    ['an unknown customerType', individual({ customerType: 'ROBOT' }), 'customerType'],
    ['an unknown field', individual({ isAdmin: true }), 'isAdmin'],
    ['an impossible date', individual({ birthDate: '1990-02-30' }), 'birthDate'],
    ['a nested missing field', individual({ address: { line1: 'x', country: 'US' } }), 'address.postalCode'],
    ['a NUL character', individual({ fullName: 'a\u0000b' }), 'fullName'],
    ['a null member', individual({ email: null }), 'email'],
    ['an array body', [individual()], '(body)'],
    ['a null body', null, '(body)'],
  ])('answers 400 INVALID_INPUT naming the field for %s', async (_name, body, field) => {
    const before = calls.create;
    const reply = await post(body);
    expectError(reply, 400, 'INVALID_INPUT');
    expect(reply.body.details.errors.map((error: { field: string }) => error.field)).toContain(field);
    expect(calls.create).toBe(before);
  });

  it('validates the business variant and its businessInfo', async () => {
    const reply = await post({ customerType: 'BUSINESS', businessInfo: { legalName: 'Acme' }, kycStatus: 'APPROVED' });
    expectError(reply, 400, 'INVALID_INPUT');
    const fields = reply.body.details.errors.map((error: { field: string }) => error.field);
    expect(fields).toEqual(expect.arrayContaining(['businessInfo.taxId', 'businessInfo.incorporatedOn', 'kycStatus']));
  });

  it('answers 400 for invalid JSON and a wrong content type, 413 for a 2 MB body', async () => {
    expectError(await api({ method: 'POST', path: '/customers', raw: '{"customerType": "INDIVIDUAL",' }), 400, 'INVALID_INPUT');
    const plain = await api({ method: 'POST', path: '/customers', raw: JSON.stringify(individual()), contentType: 'text/plain' });
    expectError(plain, 400, 'INVALID_INPUT');
    expect(plain.body.message).toBe('Content-Type must be application/json.');
    const large = await api({
      method: 'POST',
      path: '/customers',
      raw: JSON.stringify(individual({ fullName: 'x'.repeat(2 * 1024 * 1024) })),
    });
    expectError(large, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('parses list queries and rejects out-of-range limits and unknown filters', async () => {
    expect((await api({ path: '/customers?limit=5&customerType=BUSINESS&isIncludingDeleted=true' })).status).toBe(200);
    expect(calls.list[calls.list.length - 1]).toEqual({ customerType: 'BUSINESS', isIncludingDeleted: true, limit: 5 });
    expect((await api({ path: '/customers' })).status).toBe(200);
    expect(calls.list[calls.list.length - 1]).toEqual({ limit: 20 });
    const tooMany = await api({ path: '/customers?limit=101' });
    expectError(tooMany, 400, 'INVALID_INPUT');
    expect(tooMany.body.message).toContain('from 1 to 100');
    expectError(await api({ path: '/customers?limit=abc' }), 400, 'INVALID_INPUT');
    expectError(await api({ path: '/customers?createdAfter=2026-02-30T99:00:00Z' }), 400, 'INVALID_INPUT');
    expectError(await api({ path: '/customers?name=x' }), 400, 'INVALID_INPUT');
  });

  it('validates token and config bodies', async () => {
    expectError(await api({ method: 'POST', path: '/tokens', body: { name: 'x', permissions: [] } }), 400, 'INVALID_INPUT');
    expectError(await api({ method: 'POST', path: '/tokens', body: { name: 'x', permissions: ['ROOT'] } }), 400, 'INVALID_INPUT');
    expectError(await api({ method: 'PATCH', path: '/config', body: { webhookEndpoint: 'ftp://example.com/x' } }), 400, 'INVALID_INPUT');
    expectError(await api({ method: 'PATCH', path: '/config', body: { umaDomain: null } }), 400, 'INVALID_INPUT');
    const nested = await api({ method: 'PATCH', path: '/config', body: { embeddedWalletConfig: { otpLength: 3 } } });
    expectError(nested, 400, 'INVALID_INPUT');
    expect(nested.body.details.errors[0].field).toBe('embeddedWalletConfig.otpLength');
  });
});

describe('idempotency', () => {
  it('replays the first response for the same key and body', async () => {
    const body = individual({ platformCustomerId: 'idem-1' });
    const before = calls.create;
    const first = await api({ method: 'POST', path: '/customers', body, headers: { 'idempotency-key': 'key-1' } });
    const second = await api({ method: 'POST', path: '/customers', body: { ...body }, headers: { 'idempotency-key': 'key-1' } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotency-replayed']).toBe('true');
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    expect(calls.create).toBe(before + 1);
  });

  it('answers 409 CONFLICT for the same key with a different body', async () => {
    await api({
      method: 'POST',
      path: '/customers',
      body: individual({ platformCustomerId: 'idem-2' }),
      headers: { 'idempotency-key': 'key-2' },
    });
    const reuse = await api({
      method: 'POST',
      path: '/customers',
      body: individual({ platformCustomerId: 'other' }),
      headers: { 'idempotency-key': 'key-2' },
    });
    expectError(reuse, 409, 'CONFLICT');
  });

  it('runs one of two concurrent duplicates and replays it to the other', async () => {
    const body = individual({ platformCustomerId: 'idem-race' });
    const before = calls.create;
    const replies = await Promise.all(
      [1, 2].map(() => api({ method: 'POST', path: '/customers', body, headers: { 'idempotency-key': 'key-race' } })),
    );
    expect(replies.map((reply) => reply.status)).toEqual([201, 201]);
    expect(replies[0]?.body).toEqual(replies[1]?.body);
    expect(replies.filter((reply) => reply.headers['idempotency-replayed'] === 'true')).toHaveLength(1);
    expect(calls.create).toBe(before + 1);
  });

  it('replays a service error and releases the key after a validation error', async () => {
    const taken = individual({ platformCustomerId: 'taken' });
    expectError(await api({ method: 'POST', path: '/customers', body: taken, headers: { 'idempotency-key': 'key-err' } }), 409, 'CONFLICT');
    const replayed = await api({ method: 'POST', path: '/customers', body: taken, headers: { 'idempotency-key': 'key-err' } });
    expectError(replayed, 409, 'CONFLICT');
    expect(replayed.headers['idempotency-replayed']).toBe('true');

    expectError(
      await api({ method: 'POST', path: '/customers', body: individual({ email: 'nope' }), headers: { 'idempotency-key': 'key-fix' } }),
      400,
      'INVALID_INPUT',
    );
    const fixed = await api({
      method: 'POST',
      path: '/customers',
      body: individual({ platformCustomerId: 'fixed' }),
      headers: { 'idempotency-key': 'key-fix' },
    });
    expect(fixed.status).toBe(201);
  });

  it('scopes keys to the actor: the platform, for every token of it', async () => {
    const keys = await redis.keys(`${config.redisKeyPrefix}idem:Platform:one:platform:key-1`);
    expect(keys).toHaveLength(1);
  });
});

describe('rate limiting', () => {
  let limited: NestFastifyApplication;

  beforeAll(async () => {
    limited = await createGateway({ ...config, redisKeyPrefix: uniqueRedisPrefix(), rateLimitRequests: 3, rateLimitWindowSeconds: 60 });
  });

  afterAll(async () => {
    await limited?.close();
  });

  it('answers 429 RATE_LIMITED with Retry-After once a token exceeds its window', async () => {
    const statuses: number[] = [];
    const replies: Awaited<ReturnType<typeof send>>[] = [];
    for (let index = 0; index < 4; index += 1) {
      const reply = await send(limited, { path: '/2025-10-13/customers', auth: viewer });
      statuses.push(reply.status);
      replies.push(reply);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const [, , , limitedReply] = replies;
    if (!limitedReply) throw new Error('no fourth reply');
    expectError(limitedReply, 429, 'RATE_LIMITED');
    expect(Number(limitedReply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limitedReply.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Another token has its own window.
    expect((await send(limited, { path: '/2025-10-13/customers', auth: admin })).status).toBe(200);
  });
});

describe('rate limiting per platform', () => {
  let limited: NestFastifyApplication;

  beforeAll(async () => {
    const limits = { rateLimitRequests: 10, rateLimitPlatformRequests: 4, rateLimitWindowSeconds: 60 };
    limited = await createGateway({ ...config, redisKeyPrefix: uniqueRedisPrefix(), ...limits });
  });

  afterAll(async () => {
    await limited?.close();
  });

  it("answers 429 once a platform's tokens together exceed its window, though no token exceeded its own", async () => {
    const statuses: number[] = [];
    for (const auth of [admin, viewer, admin, viewer, admin]) {
      statuses.push((await send(limited, { path: '/2025-10-13/customers', auth })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const reply = await send(limited, { path: '/2025-10-13/customers', auth: viewer });
    expectError(reply, 429, 'RATE_LIMITED');
    expect(reply.body.details).toMatchObject({ limit: 'requests-per-platform' });
    expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('failed authentications', () => {
  let guarded: NestFastifyApplication;
  const at = (address: string, auth: string) =>
    send(guarded, { path: '/2025-10-13/customers', auth, headers: { 'x-forwarded-for': address } });

  beforeAll(async () => {
    guarded = await createGateway({
      ...config,
      redisKeyPrefix: uniqueRedisPrefix(),
      authFailuresPerAddress: 3,
      authFailuresPerClient: 3,
      authFailureWindowSeconds: 60,
      authCacheTtlSeconds: 1,
      trustProxy: true,
      metricsPort: 0,
    });
    // The counters live in Redis: until this gateway's connection is ready they fall back to memory,
    // and counts split between the two would make the limits below land late.
    for (let tries = 0; tries < 50 && (await send(guarded, { path: '/health/ready', auth: null })).status !== 200; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  afterAll(async () => {
    await guarded?.close();
  });

  it('answers a repeated wrong pair from memory, then 429 with Retry-After past its address limit; other addresses go on', async () => {
    const wrong = basic('viewer', 'not-the-secret');
    const verifiedBefore = calls.verify;
    expect((await at('203.0.113.1', wrong)).status).toBe(401);
    expect(calls.verify).toBe(verifiedBefore + 1);
    expect((await at('203.0.113.1', wrong)).status).toBe(401);
    expect((await at('203.0.113.1', wrong)).status).toBe(401);
    // The repeats were answered without asking the platform service.
    expect(calls.verify).toBe(verifiedBefore + 1);
    const limitedReply = await at('203.0.113.1', wrong);
    expectError(limitedReply, 429, 'RATE_LIMITED');
    expect(Number(limitedReply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limitedReply.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await at('203.0.113.2', admin)).status).toBe(200);
    // The client id "viewer" failed three times too: from any address it is now refused before the hop.
    expect((await at('203.0.113.3', basic('viewer', 'another-guess'))).status).toBe(429);
  });

  it('judges a concurrent burst of guesses from one address only up to its limit; the rest are 429 before the hop', async () => {
    const verifiedBefore = calls.verify;
    const guesses = Array.from({ length: 12 }, (_, index) => at('198.51.100.7', basic(`guesser-${index}`, `guess-${index}`)));
    const statuses = (await Promise.all(guesses)).map((reply) => reply.status).sort();
    expect(calls.verify - verifiedBefore).toBeLessThanOrEqual(3);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(9);
  });

  it('verifies concurrent first requests of one credential once, and admits them all', async () => {
    const verifiedBefore = calls.verify;
    const transact = basic('transact', 'transact-secret');
    const replies = await Promise.all(Array.from({ length: 10 }, () => at('198.51.100.8', transact)));
    expect(replies.map((reply) => reply.status)).toEqual(Array(10).fill(200));
    expect(calls.verify - verifiedBefore).toBe(1);
  });

  it('keeps verifying a credential that verified before while its client id is blocked by others', async () => {
    expect((await at('203.0.113.10', admin)).status).toBe(200);
    for (const address of ['203.0.113.11', '203.0.113.12', '203.0.113.13']) {
      expect((await at(address, basic('admin', 'guess'))).status).toBe(401);
    }
    expect((await at('203.0.113.14', basic('admin', 'guess-again'))).status).toBe(429);
    // Past the credential cache's TTL the owner is verified again (not served from memory), not refused.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const verifiedBefore = calls.verify;
    expect((await at('203.0.113.15', admin)).status).toBe(200);
    expect(calls.verify).toBe(verifiedBefore + 1);
  });

  it('counts the failures and refusals on GET /metrics', async () => {
    const reply = await fetch(`${guarded.get(MetricsServer).url!}/metrics`);
    expect(reply.status).toBe(200);
    const body = await reply.text();
    expect(body).toMatch(/^corridor_gateway_auth_failures_total\{reason="wrong_credentials"\} [1-9]/m);
    expect(body).toMatch(/^corridor_gateway_auth_failures_total\{reason="known_bad"\} [1-9]/m);
    expect(body).toMatch(/^corridor_gateway_auth_limited_total\{scope="address"\} [1-9]/m);
    expect(body).toMatch(/^corridor_gateway_auth_limited_total\{scope="client"\} [1-9]/m);
    expect(body).not.toContain('not-the-secret');
  });
});

describe('docs and health', () => {
  it('serves the OpenAPI document', async () => {
    const reply = await send(gateway, { path: '/docs/json', auth: null });
    expect(reply.status).toBe(200);
    expect(reply.body.servers).toEqual([expect.objectContaining({ url: '/2025-10-13' })]);
    expect(Object.keys(reply.body.paths)).toEqual(expect.arrayContaining(['/customers', '/tokens/{tokenId}', '/config']));
  });

  it('documents what an omitted transfer amount and an omitted lookup sender mean', async () => {
    const { paths } = (await send(gateway, { path: '/docs/json', auth: null })).body;
    expect(paths['/transfer-out'].post.description).toContain('whole available balance');
    expect(paths['/transfer-in'].post.description).toContain('a transfer-in without one is a 400');
    const lookup = paths['/receiver/uma/{receiverUmaAddress}'].get;
    expect(lookup.description).toContain('Without one, the lookup is of the receiver alone');
    const senderParameters = lookup.parameters.filter((parameter: { name: string }) =>
      ['senderUmaAddress', 'customerId'].includes(parameter.name),
    );
    expect(senderParameters.map((parameter: { required: boolean }) => parameter.required)).toEqual([false, false]);
    expect(paths['/receiver/external-account/{accountId}'].get.description).toContain('Without one, the lookup is of the receiver alone');
  });

  it('reports ok while every service answers', async () => {
    const reply = await send(gateway, { path: '/health', auth: null });
    expect(reply).toMatchObject({ status: 200, body: { status: 'ok', services: { platform: 'ok', customers: 'ok' } } });
  });

  it('answers 503 promptly when the customers service is down', async () => {
    await customers?.close();
    customers = undefined;
    const reply = await api({ path: '/customers' });
    expectError(reply, 503, 'SERVICE_UNAVAILABLE');
    expect(reply.body.message).toContain('customers');
    const health = await send(gateway, { path: '/health', auth: null });
    expect(health).toMatchObject({ status: 503, body: { status: 'degraded', services: { platform: 'ok', customers: 'unavailable' } } });
    const versioned = await send(gateway, { path: '/2025-10-13/health', auth: null });
    expect(versioned.status).toBe(503);
  });
});
