// Bad input as a careless or hostile client sends it: every answer is a 4xx with the reference
// error body and a message a person can act on, never a 500, and nothing is written.
import { request } from 'node:http';
import { basic, createApi, type Credentials } from './support/api';
import { type Stack, startStack } from './support/stack';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let admin: Credentials;
let existingCustomerId: string;

const validCustomer = () => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: 'valid-1',
  region: 'US',
  fullName: 'Valid Person',
  email: 'valid@example.com',
  birthDate: '1990-01-15',
  nationality: 'US',
  address: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
});

const customerCount = async (): Promise<number> =>
  (await api.call('GET', '/customers?isIncludingDeleted=true', { auth: admin })).body.totalCount as number;

/**
 * POSTs a body the gateway refuses from its Content-Length alone. Like a careful client, it sends
 * the headers first and writes the body only if no answer came: the gateway answers 413 at once and
 * closes, and a body written into that close races the answer (the peer's reset can discard it).
 */
const postEarlyAnswered = (path: string, body: string): Promise<{ status: number; body: any }> =>
  new Promise((resolve, reject) => {
    const outgoing = request(`${stack.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: basic(admin), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    let answered = false;
    const writeBodyIfUnanswered = setTimeout(() => {
      if (!answered) outgoing.end(body);
    }, 2_000);
    outgoing.on('response', (response) => {
      answered = true;
      clearTimeout(writeBodyIfUnanswered);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        outgoing.destroy();
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      });
      response.on('error', reject);
    });
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    outgoing.flushHeaders();
  });

const expectClientError = (reply: { status: number; body: any }, status?: number) => {
  if (status) expect(reply.status).toBe(status);
  expect(reply.status).toBeGreaterThanOrEqual(400);
  expect(reply.status).toBeLessThan(500);
  expect(reply.body).toEqual(expect.objectContaining({ status: reply.status, code: expect.any(String), message: expect.any(String) }));
  expect(reply.body.message.length).toBeGreaterThan(10);
};

beforeAll(async () => {
  stack = await startStack();
  api = createApi(stack, 'bad-input');
  admin = (await stack.createPlatform()).token as Credentials;
  existingCustomerId = (await api.call('POST', '/customers', { auth: admin, body: { ...validCustomer(), platformCustomerId: 'existing' } })).body.id;
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

describe('malformed customer bodies', () => {
  const cases: [string, unknown][] = [
    ['a missing customerType', { ...validCustomer(), customerType: undefined }],
    ['a wrongly typed field', { ...validCustomer(), fullName: 42 }],
    ['an unknown enum value', { ...validCustomer(), customerType: 'ROBOT' }],
    ['an unknown kycStatus', { ...validCustomer(), kycStatus: 'MAYBE' }],
    ['an unknown field', { ...validCustomer(), isAdmin: true }],
    ['an invalid email', { ...validCustomer(), email: 'not-an-email' }],
    ['an impossible birth date', { ...validCustomer(), birthDate: '1990-13-45' }],
    ['a region that is not a country code', { ...validCustomer(), region: 'USA' }],
    ['an address without postalCode', { ...validCustomer(), address: { line1: 'x', country: 'US' } }],
    ['a malformed UMA address', { ...validCustomer(), umaAddress: 'alice@example.com' }],
    ['an array instead of an object', [validCustomer()]],
    ['null', null],
  ];

  it.each(cases)('answers 400 for %s and writes nothing', async (_name, body) => {
    const before = await customerCount();
    const reply = await api.call('POST', '/customers', { auth: admin, rawBody: JSON.stringify(body) });
    expectClientError(reply, 400);
    expect(await customerCount()).toBe(before);
  });

  it('answers 400 for invalid JSON and for a wrong content type', async () => {
    expectClientError(await api.call('POST', '/customers', { auth: admin, rawBody: '{"customerType": "INDIVIDUAL",' }), 400);
    const plain = await api.call('POST', '/customers', { auth: admin, rawBody: JSON.stringify(validCustomer()), contentType: 'text/plain' });
    expectClientError(plain);
    expect([400, 415]).toContain(plain.status);
  });

  it('answers 413 for a 2 MB body and writes nothing', async () => {
    const before = await customerCount();
    const reply = await postEarlyAnswered('/customers', JSON.stringify({ ...validCustomer(), fullName: 'x'.repeat(2 * 1024 * 1024) }));
    api.conformance.check({ method: 'POST', path: '/customers', status: reply.status, body: reply.body });
    expectClientError(reply, 413);
    expect(await customerCount()).toBe(before);
  });
});

describe('ids in paths', () => {
  it.each(['not-an-id', 'Customer:123', 'Token:0196f1a0-0000-7000-8000-000000000001', "Customer:' OR 1=1 --"])('answers 404 for customer id %s', async (id) => {
    expectClientError(await api.call('GET', `/customers/${encodeURIComponent(id)}`, { auth: admin }), 404);
    expectClientError(await api.call('PATCH', `/customers/${encodeURIComponent(id)}`, { auth: admin, body: { customerType: 'INDIVIDUAL' } }), 404);
    expectClientError(await api.call('DELETE', `/customers/${encodeURIComponent(id)}`, { auth: admin }), 404);
  });

  it('answers 404 for an unknown but well-formed id and for unknown routes, 405 for a wrong method', async () => {
    expectClientError(await api.call('GET', '/customers/Customer:0196f1a0-0000-7000-8000-000000000001', { auth: admin }), 404);
    expectClientError(await api.call('GET', '/tokens/Token:0196f1a0-0000-7000-8000-000000000001', { auth: admin }), 404);
    expectClientError(await api.call('GET', '/no-such-thing', { auth: admin }), 404);
    const wrongMethod = await api.call('PUT', '/customers', { auth: admin, body: {} });
    expectClientError(wrongMethod, 405);
    const version = await fetch(`${stack.gatewayUrl}/2024-01-01/customers`);
    expect(version.status).toBe(404);
    expect(JSON.stringify(await version.json())).toContain('2025-10-13');
  });
});

// A deterministic fuzz pass: valid bodies with one member replaced by hostile values, over every
// route this part of Corridor serves. Any 5xx, or an error body off the contract, fails.
const hostile: unknown[] = [null, true, -1, 1e308, 2 ** 63, '', ' ', 'x'.repeat(5000), '<script>', "'; DROP TABLE customers; --", [], [1, 'a'], {}, { $gt: '' }, '\u0000', '2026-02-30', 'ÿ'.repeat(50)];

const mutations = (body: Record<string, unknown>) =>
  Object.keys(body).flatMap((key) => [
    { ...body, [key]: undefined },
    ...hostile.map((value) => ({ ...body, [key]: value })),
  ]);

describe('fuzz', () => {
  const routes: { label: string; method: string; path: () => string; body: () => Record<string, unknown> }[] = [
    { label: 'POST /customers', method: 'POST', path: () => '/customers', body: validCustomer },
    { label: 'PATCH /customers/{id}', method: 'PATCH', path: () => `/customers/${existingCustomerId}`, body: () => ({ customerType: 'INDIVIDUAL', email: 'f@example.com', currencies: ['USD'] }) },
    { label: 'POST /tokens', method: 'POST', path: () => '/tokens', body: () => ({ name: 'fuzz', permissions: ['VIEW'] }) },
    { label: 'PATCH /config', method: 'PATCH', path: () => '/config', body: () => ({ umaDomain: 'fuzz.example.com', webhookEndpoint: 'https://fuzz.example.com/hook' }) },
  ];

  it.each(routes.map((route) => [route.label, route] as const))('survives hostile members on %s', async (_label, route) => {
    let clientErrors = 0;
    for (const body of mutations(route.body())) {
      const reply = await api.call(route.method, route.path(), { auth: admin, rawBody: JSON.stringify(body) });
      expect(reply.status).toBeLessThan(500);
      if (reply.status >= 400) {
        expectClientError(reply);
        clientErrors += 1;
      }
    }
    expect(clientErrors).toBeGreaterThan(0);
  });

  it('survives hostile query strings on the lists', async () => {
    const params = ['limit', 'cursor', 'createdAfter', 'createdBefore', 'updatedAfter', 'updatedBefore', 'customerType', 'region', 'currency', 'isIncludingDeleted', 'platformCustomerId', 'umaAddress', 'name'];
    const values = ['', '-1', 'abc', '9'.repeat(30), '2026-02-30T99:00:00Z', '%00', "' OR 1=1", '[]', 'true', 'ROBOT'];
    for (const path of ['/customers', '/tokens']) {
      for (const param of params) {
        for (const value of values) {
          const reply = await api.call('GET', `${path}?${param}=${encodeURIComponent(value)}`, { auth: admin });
          expect(reply.status).toBeLessThan(500);
          if (reply.status >= 400) expectClientError(reply);
        }
      }
    }
  });
});
