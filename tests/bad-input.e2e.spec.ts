// Bad input as a careless or hostile client sends it: every answer is a 4xx with the reference
// error body and a message a person can act on, never a 500, and nothing is written.
import { request } from 'node:http';
import { basic, createApi, type Credentials } from './support/api';
import { eventually } from './support/eventually';
import { jsonWriteOperations, requiredMembers, without } from './support/required-members';
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

// Missing required members, driven by the reference OpenAPI file: for every write operation with a
// JSON body, a valid body below is sent once without each member the reference requires (top level
// and inside every nested object it carries). Each answer is a 400 whose message names the member,
// never a 5xx and never a success. An operation of the reference without a body here must be one
// this server answers as not supported, so a newly served route fails this test until it has one.
describe('missing required members on every write route', () => {
  const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' };
  const address = { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' };
  const ownerInfo = { firstName: 'Jane', lastName: 'Smith', birthDate: '1978-06-15', nationality: 'US', address, idType: 'SSN', identifier: '123-45-6789' };
  const fixtures = { businessId: '', beneficialOwnerId: '', internalAccountId: '', externalAccountId: '' };
  const unknownTransaction = 'Transaction:0196f1a0-0000-7000-8000-000000000001';
  const samples = (): Record<string, { path: string; bodies: Record<string, unknown>[] }> => ({
    'PATCH /config': {
      path: '/config',
      bodies: [{ supportedCurrencies: [{ currencyCode: 'USD', minAmount: 1, maxAmount: 100_000, requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }], enabledTransactionTypes: ['OUTGOING'] }] }],
    },
    'POST /customers': {
      path: '/customers',
      bodies: [validCustomer(), { customerType: 'BUSINESS', platformCustomerId: 'missing-b', businessInfo: { legalName: 'Acme', taxId: '12-3456789', incorporatedOn: '2001-02-03' }, address }],
    },
    'PATCH /customers/{customerId}': {
      path: `/customers/${existingCustomerId}`,
      bodies: [{ customerType: 'INDIVIDUAL', email: 'm@example.com', address }],
    },
    'POST /customers/{customerId}/kyc-link': { path: `/customers/${existingCustomerId}/kyc-link`, bodies: [{ redirectUri: 'https://example.com/done' }] },
    'POST /customers/external-accounts': {
      path: '/customers/external-accounts',
      bodies: [{ customerId: existingCustomerId, currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '000555000001', routingNumber: '011000015', beneficiary: person } }],
    },
    'POST /platform/external-accounts': {
      path: '/platform/external-accounts',
      bodies: [{ currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', swiftCode: 'COBADEFFXXX', beneficiary: { ...person, countryOfResidence: 'DE' } } }],
    },
    'POST /beneficial-owners': {
      path: '/beneficial-owners',
      bodies: [{ customerId: fixtures.businessId, roles: ['UBO'], ownershipPercentage: 10, personalInfo: ownerInfo }],
    },
    'PATCH /beneficial-owners/{beneficialOwnerId}': { path: `/beneficial-owners/${fixtures.beneficialOwnerId}`, bodies: [{ personalInfo: { address } }] },
    'POST /verifications': { path: '/verifications', bodies: [{ customerId: fixtures.businessId }] },
    'POST /transfer-in': {
      path: '/transfer-in',
      bodies: [{ source: { accountId: fixtures.externalAccountId }, destination: { accountId: fixtures.internalAccountId }, amount: 100 }],
    },
    'POST /transfer-out': {
      path: '/transfer-out',
      bodies: [{ source: { accountId: fixtures.internalAccountId }, destination: { accountId: fixtures.externalAccountId }, amount: 100 }],
    },
    'POST /quotes': {
      path: '/quotes',
      bodies: [
        { source: { sourceType: 'ACCOUNT', accountId: fixtures.internalAccountId }, destination: { destinationType: 'ACCOUNT', accountId: fixtures.externalAccountId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100 },
        { source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: existingCustomerId }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money' }, lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 100 },
      ],
    },
    'POST /transactions/{transactionId}/confirm': { path: `/transactions/${unknownTransaction}/confirm`, bodies: [{}] },
    'POST /transactions/{transactionId}/approve': { path: `/transactions/${unknownTransaction}/approve`, bodies: [{}] },
    'POST /transactions/{transactionId}/reject': { path: `/transactions/${unknownTransaction}/reject`, bodies: [{}] },
    'POST /crypto/estimate-withdrawal-fee': {
      path: '/crypto/estimate-withdrawal-fee',
      bodies: [{ internalAccountId: fixtures.internalAccountId, currency: 'USDC', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU' }],
    },
    'POST /invitations': { path: '/invitations', bodies: [{ inviterUma: '$alice@example.com' }] },
    'POST /invitations/{invitationCode}/claim': { path: '/invitations/abcd1234/claim', bodies: [{ inviteeUma: '$bob@example.com' }] },
    'POST /sandbox/send': { path: '/sandbox/send', bodies: [{ quoteId: 'Quote:0196f1a0-0000-7000-8000-000000000001', currencyCode: 'USD' }] },
    'POST /sandbox/uma/receive': { path: '/sandbox/uma/receive', bodies: [{ senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: existingCustomerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 }] },
    'POST /sandbox/internal-accounts/{accountId}/fund': { path: `/sandbox/internal-accounts/${fixtures.internalAccountId}/fund`, bodies: [{ amount: 100 }] },
    'POST /tokens': { path: '/tokens', bodies: [{ name: 'missing', permissions: ['VIEW'] }] },
    'PATCH /internal-accounts/{id}': { path: `/internal-accounts/${fixtures.internalAccountId}`, bodies: [{}] },
    'POST /cards': { path: '/cards', bodies: [{ cardholderId: existingCustomerId, form: 'VIRTUAL', fundingSources: [fixtures.internalAccountId] }] },
    'PATCH /cards/{id}': { path: '/cards/Card:0196f1a0-0000-7000-8000-000000000001', bodies: [{ state: 'FROZEN' }] },
  });

  beforeAll(async () => {
    const business = await api.call('POST', '/customers', {
      auth: admin,
      body: { customerType: 'BUSINESS', platformCustomerId: 'missing-owners', businessInfo: { legalName: 'Owners Inc', taxId: '98-7654321', incorporatedOn: '2010-01-01' } },
    });
    fixtures.businessId = business.body.id;
    const owner = await api.call('POST', '/beneficial-owners', { auth: admin, body: { customerId: fixtures.businessId, roles: ['DIRECTOR'], ownershipPercentage: 0, personalInfo: ownerInfo } });
    fixtures.beneficialOwnerId = owner.body.id;
    const accounts = await eventually(
      async () => (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(existingCustomerId)}`, { auth: admin })).body.data as { id: string }[],
      (list) => list.length > 0,
    );
    fixtures.internalAccountId = accounts[0]!.id;
    const external = await api.call('POST', '/customers/external-accounts', {
      auth: admin,
      body: { customerId: existingCustomerId, currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '000444000001', routingNumber: '011000015', beneficiary: person } },
    });
    fixtures.externalAccountId = external.body.id;
    expect([business.status, owner.status, external.status]).toEqual([201, 201, 201]);
  }, 60_000);

  const operations = jsonWriteOperations();

  it.each(operations.map((operation) => [`${operation.method} ${operation.template}`, operation] as const))('%s', async (label, operation) => {
    const sample = samples()[label];
    if (!sample) {
      const path = operation.template.replace(/\{[^}]+\}/g, 'x');
      // Unchecked, so an operation this server does not serve is not counted as exercised in the conformance report.
      const reply = await api.call(operation.method, path, { auth: admin, body: {}, unchecked: true });
      expect({ label, status: reply.status, message: reply.body.message }).toEqual({ label, status: 404, message: expect.stringContaining('is not an operation this Corridor server supports') });
      expectClientError(reply, 404);
      return;
    }
    for (const body of sample.bodies) {
      for (const member of requiredMembers(operation, body)) {
        const reply = await api.call(operation.method, sample.path, { auth: admin, body: without(body, member.path) });
        const seen = { without: member.label, status: reply.status, message: reply.body?.message };
        expect(seen).toEqual({ without: member.label, status: 400, message: expect.stringContaining(member.path[member.path.length - 1]!) });
        expectClientError(reply, 400);
      }
    }
  });

  it('reads the required members from the reference, nested ones included', () => {
    const operation = operations.find((candidate) => candidate.method === 'POST' && candidate.template === '/beneficial-owners')!;
    const labels = requiredMembers(operation, samples()['POST /beneficial-owners']!.bodies[0]!).map((member) => member.label);
    expect(labels).toEqual(expect.arrayContaining(['customerId', 'personalInfo', 'personalInfo.lastName', 'personalInfo.address', 'personalInfo.address.postalCode']));
    const quotes = operations.find((candidate) => candidate.method === 'POST' && candidate.template === '/quotes')!;
    const quoteLabels = requiredMembers(quotes, samples()['POST /quotes']!.bodies[1]!).map((member) => member.label);
    expect(quoteLabels).toEqual(expect.arrayContaining(['source.currency', 'destination.umaAddress', 'lockedCurrencyAmount']));
    const external = operations.find((candidate) => candidate.method === 'POST' && candidate.template === '/customers/external-accounts')!;
    const externalLabels = requiredMembers(external, samples()['POST /customers/external-accounts']!.bodies[0]!).map((member) => member.label);
    expect(externalLabels).toEqual(expect.arrayContaining(['accountInfo.accountType', 'accountInfo.routingNumber', 'accountInfo.beneficiary.fullName']));
    const config = operations.find((candidate) => candidate.method === 'PATCH' && candidate.template === '/config')!;
    const configLabels = requiredMembers(config, samples()['PATCH /config']!.bodies[0]!).map((member) => member.label);
    expect(configLabels).toEqual(expect.arrayContaining(['supportedCurrencies.0.currencyCode', 'supportedCurrencies.0.requiredCounterpartyFields.0.name']));
  });
});
