// Pins down that Corridor's published OpenAPI drives a generated client: the types openapi-typescript
// generated from openapi/corridor-openapi.json, with openapi-fetch, create a customer, list its
// accounts, fund one in the sandbox and quote from it, by the reference's paths and bodies, with an
// Idempotency-Key and typed error bodies. Every reply is also held to the reference (conformance).
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../openapi/corridor-api';
import { basic, createApi } from './support/api';
import { eventually } from '@corridor/testing';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';

let stack: StackView;
let api: ReturnType<typeof createApi>;
let client: Client<paths>;

/** Every reply the generated client receives goes through the same reference check as the suites' own calls. */
const conformanceCheck = (check: ReturnType<typeof createApi>['conformance']['check']): Middleware => ({
  async onResponse({ request, response }) {
    const text = await response.clone().text();
    check({
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      body: text ? JSON.parse(text) : undefined,
    });
    return undefined;
  },
});

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'openapi-client');
  const { token } = await stack.createPlatform();
  client = createClient<paths>({
    baseUrl: stack.baseUrl,
    headers: { authorization: basic(token as { clientId: string; clientSecret: string }) },
  });
  client.use(conformanceCheck(api.conformance.check));
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

describe('a client generated from the published OpenAPI', () => {
  let customerId: string;
  let usdAccountId: string;

  it('creates a customer (createCustomer)', async () => {
    const { data, error, response } = await client.POST('/customers', {
      body: { customerType: 'INDIVIDUAL', platformCustomerId: 'openapi-client-1', fullName: 'Ada Typed', currencies: ['USD'] },
    });
    expect([response.status, error]).toEqual([201, undefined]);
    expect(data).toMatchObject({ customerType: 'INDIVIDUAL', platformCustomerId: 'openapi-client-1' });
    customerId = String(data?.id);
  });

  it('lists the customer’s internal accounts (listCustomerInternalAccounts)', async () => {
    const accounts = await eventually(
      async () => (await client.GET('/customers/internal-accounts', { params: { query: { customerId } } })).data?.data ?? [],
      (list) => list.length > 0,
    );
    const usd = accounts.find((account) => account.balance.currency.code === 'USD');
    expect(usd).toMatchObject({ customerId, balance: { amount: 0 } });
    usdAccountId = String(usd?.id);
  });

  it('funds the account in the sandbox (sandboxFundInternalAccount)', async () => {
    const { data, response } = await client.POST('/sandbox/internal-accounts/{accountId}/fund', {
      params: { path: { accountId: usdAccountId } },
      body: { amount: 100_000 },
    });
    expect(response.status).toBe(200);
    expect(data?.balance.amount).toBe(100_000);
  });

  it('quotes from it under an Idempotency-Key, and a repeat answers the same quote (createQuote)', async () => {
    const request = {
      params: { header: { 'Idempotency-Key': 'openapi-client-quote-1' } },
      body: {
        source: { sourceType: 'ACCOUNT' as const, accountId: usdAccountId },
        destination: { destinationType: 'UMA_ADDRESS' as const, umaAddress: '$success.mxn@sandbox.uma.money' },
        lockedCurrencySide: 'SENDING' as const,
        lockedCurrencyAmount: 5_000,
      },
    };
    const first = await client.POST('/quotes', request);
    expect(first.response.status).toBe(201);
    expect(first.data).toMatchObject({
      sendingCurrency: { code: 'USD' },
      receivingCurrency: { code: 'MXN' },
      totalSendingAmount: expect.any(Number),
    });
    const repeat = await client.POST('/quotes', request);
    expect([repeat.response.status, repeat.data?.id]).toEqual([201, first.data?.id]);
    const read = await client.GET('/quotes/{quoteId}', { params: { path: { quoteId: String(first.data?.id) } } });
    expect(read.data?.id).toBe(first.data?.id);
  });

  it('reads an error as the reference’s typed error body (getCustomerById)', async () => {
    const { data, error, response } = await client.GET('/customers/{customerId}', {
      params: { path: { customerId: 'Customer:00000000-0000-0000-0000-000000000000' } },
    });
    expect([response.status, data]).toEqual([404, undefined]);
    expect(error).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    expect(response.headers.get('x-request-id')).toEqual(expect.any(String));
  });

  it('calls a Corridor extension by its operation’s path (getWebhookSigningKey)', async () => {
    const { data, response } = await client.GET('/webhooks/signing-key');
    expect(response.status).toBe(200);
    expect(data?.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
  });
});
