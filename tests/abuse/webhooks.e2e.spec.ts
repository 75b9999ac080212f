// Attacks on webhook egress and fairness, each as a tenant would try it (issue 21):
// - a sandbox token points webhookEndpoint at loopback, private, link-local or metadata addresses
//   to reach internal services (on a stack without WEBHOOK_ALLOW_PRIVATE_TARGETS, as production runs);
// - the sandbox test webhook reads an internal service's answer back (on a stack that opts in, as
//   a development stack does: even there, a private address's body never goes back);
// - a platform whose endpoint never answers fills the delivery slots, so another platform's
//   INCOMING_PAYMENT.PENDING approval hook misses its window and its payment fails;
// - and the circuit breaker that stops sending to such an endpoint.
// Each test failed on the code before this change (docs/decisions/0023-webhook-egress-and-fairness.md).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApi, type Credentials } from '../support/api';
import { eventually, waitUntil } from '@corridor/testing';
import { type Stack, startStack } from '../support/stack';
import { type Receiver, startReceiver } from '../support/webhook-receiver';

const SENDER = '$success.usd@sandbox.uma.money';

type HangingEndpoint = { url: string; held: Set<IncomingMessage>; mostHeld: number; close(): Promise<void> };

/** A webhook endpoint that takes every request and never answers (a hostile or broken platform's); counts the most it held at once. */
const startHangingEndpoint = async (): Promise<HangingEndpoint> => {
  const held = new Set<IncomingMessage>();
  const server: Server = createServer((request) => {
    held.add(request);
    endpoint.mostHeld = Math.max(endpoint.mostHeld, held.size);
    request.on('close', () => held.delete(request));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint: HangingEndpoint = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/never`,
    held,
    mostHeld: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return endpoint;
};

describe('a stack without WEBHOOK_ALLOW_PRIVATE_TARGETS (how production runs)', () => {
  let stack: Stack;
  let api: ReturnType<typeof createApi>;

  beforeAll(async () => {
    stack = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } });
    api = createApi(stack, 'abuse-webhooks-egress');
  }, 180_000);

  afterAll(async () => {
    api?.saveReport();
    await stack?.close();
  });

  it('refuses a sandbox (and a production) platform a loopback, private, link-local or metadata endpoint: 400 naming why', async () => {
    const sandbox = (await stack.createPlatform()).token as Credentials;
    const production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
    const refusals: [endpoint: string, why: RegExp][] = [
      [`${stack.gatewayUrl}/health`, /127\.0\.0\.1 is a loopback address \(127\.0\.0\.0\/8\)/],
      ['http://localhost:9094/metrics', /localhost resolves to .*loopback/],
      ['http://[::1]:9/hook', /\[::1\] is the IPv6 loopback address/],
      ['http://[::ffff:127.0.0.1]:9/hook', /is a loopback address \(127\.0\.0\.0\/8\)/],
      // Hex, decimal and octal spellings of 127.0.0.1 are not URLs to the gateway; the platform
      // service would read them as 127.0.0.1 and refuse them too (webhook-target.spec.ts).
      ['http://0x7f.1:9/hook', /webhookEndpoint must be an http\(s\) URL/],
      ['http://2130706433:9/hook', /webhookEndpoint must be an http\(s\) URL/],
      ['http://0177.0.0.1:9/hook', /webhookEndpoint must be an http\(s\) URL/],
      ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', /169\.254\.169\.254 is the cloud metadata address/],
      ['http://[fd00:ec2::254]/latest/meta-data/', /\[fd00:ec2::254\] is the cloud metadata address \(IPv6\)/],
      ['http://169.254.10.1/hook', /is a link-local address \(169\.254\.0\.0\/16\)/],
      ['http://10.0.0.5:5432/', /is a private address \(10\.0\.0\.0\/8\)/],
      ['https://192.168.1.20/hook', /is a private address \(192\.168\.0\.0\/16\)/],
      ['https://corridor-webhooks.invalid/hook', /corridor-webhooks\.invalid does not resolve/],
    ];
    for (const auth of [sandbox, production]) {
      for (const [webhookEndpoint, why] of refusals) {
        const reply = await api.call('PATCH', '/config', { auth, body: { webhookEndpoint } });
        expect({ webhookEndpoint, status: reply.status }).toEqual({ webhookEndpoint, status: 400 });
        expect(reply.body).toMatchObject({ status: 400, code: 'INVALID_INPUT', message: expect.stringMatching(why) });
      }
      expect((await api.call('GET', '/config', { auth })).body.webhookEndpoint).toBeUndefined();
    }
    const refused = await api.call('PATCH', '/config', { auth: sandbox, body: { webhookEndpoint: 'http://10.0.0.1/hook' } });
    expect(refused.body.message).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
    // With nothing configured, the sandbox test has nowhere to go.
    const test = await api.call('POST', '/sandbox/webhooks/test', { auth: sandbox });
    expect(test.body).toMatchObject({ status: 400, code: 'WEBHOOK_ENDPOINT_NOT_SET' });
  });
});

describe('a stack that lets webhooks reach private addresses, with few delivery slots', () => {
  let stack: Stack;
  let api: ReturnType<typeof createApi>;
  let hanging: HangingEndpoint;
  let receiver: Receiver;

  const createCustomer = async (auth: Credentials, name: string, currencies?: string[]): Promise<string> => {
    const body = { customerType: 'INDIVIDUAL', fullName: name, umaAddress: `$${name.toLowerCase().replace(/ /g, '.')}@corridor.uma.money` };
    const created = await api.call('POST', '/customers', { auth, body: { ...body, ...(currencies ? { currencies } : {}) } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const deliveriesOf = async (auth: Credentials, limit: number) => {
    return (await api.call('GET', `/webhooks/deliveries?limit=${limit}`, { auth })).body;
  };

  beforeAll(async () => {
    stack = await startStack({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CONCURRENCY: '8', WEBHOOK_TIMEOUT_MS: '3000' },
      appEnv: { payments: { INCOMING_WEBHOOK_ANSWER_SECONDS: '8', INCOMING_SWEEP_MS: '200' } },
    });
    api = createApi(stack, 'abuse-webhooks-fairness');
    hanging = await startHangingEndpoint();
    receiver = await startReceiver();
  }, 180_000);

  afterAll(async () => {
    api?.saveReport();
    await hanging?.close();
    await receiver?.close();
    await stack?.close();
  });

  it('never returns the body of a private address to the sandbox test webhook, only its status', async () => {
    const platform = (await stack.createPlatform()).token as Credentials;
    const internal = await startReceiver();
    // An internal service that answers whatever it is sent with something a tenant must not read.
    internal.respond = () => ({ status: 200, body: { secret: 'internal-credentials-4711' } });
    try {
      expect((await api.call('PATCH', '/config', { auth: platform, body: { webhookEndpoint: internal.url } })).status).toBe(200);
      const reply = await api.call('POST', '/sandbox/webhooks/test', { auth: platform });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ url: internal.url, response_status: 200 });
      expect(reply.text).not.toContain('internal-credentials-4711');
    } finally {
      await internal.close();
    }
  });

  it('approves another platform’s incoming payment while an endpoint that never answers has filled the ordinary slots', async () => {
    const hostile = (await stack.createPlatform()).token as Credentials;
    const honest = (await stack.createPlatform()).token as Credentials;
    expect((await api.call('PATCH', '/config', { auth: hostile, body: { webhookEndpoint: hanging.url } })).status).toBe(200);
    expect((await api.call('PATCH', '/config', { auth: honest, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
    const payee = await createCustomer(honest, 'Honest Payee', ['USD']);
    const accountsPath = `/customers/internal-accounts?customerId=${encodeURIComponent(payee)}`;
    const accounts = async () => (await api.call('GET', accountsPath, { auth: honest })).body.data?.length > 0;
    await waitUntil('the honest customer’s USD account', accounts);
    // 48 customers, 48 webhooks to an endpoint that never answers: six rounds of eight slots, three seconds each.
    for (let index = 0; index < 48; index += 1) await createCustomer(hostile, `Flood ${index}`);
    await waitUntil('the hostile platform’s webhooks to be queued', async () => (await deliveriesOf(hostile, 1)).totalCount >= 48);
    // Every ordinary slot has been taken by the endpoint that never answers (until its circuit opens, where there is one).
    await waitUntil('the hanging endpoint to have held every ordinary delivery slot', () => hanging.mostHeld >= 8);

    const payment = { senderUmaAddress: SENDER, customerId: payee, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1500 };
    const reply = await api.call('POST', '/sandbox/uma/receive', { auth: honest, body: payment });
    expect(reply.status).toBe(200);
    const read = () => api.call('GET', `/transactions/${reply.body.id}`, { auth: honest });
    const done = await eventually(read, (latest) => !['PENDING', 'PROCESSING'].includes(latest.body.status), 30_000);
    expect(done.body).toMatchObject({ status: 'COMPLETED' });
    expect(done.body.failureReason).toBeUndefined();
    const hooks = receiver.received.filter((item) => item.body.type === 'INCOMING_PAYMENT.PENDING' && item.body.data.id === reply.body.id);
    expect(hooks).toHaveLength(1);
  }, 120_000);

  it('opens the circuit of an endpoint that keeps timing out: shown in /metrics, and its webhooks recorded as not sent', async () => {
    const hostile = await stack.createPlatform();
    const auth = hostile.token as Credentials;
    expect((await api.call('PATCH', '/config', { auth, body: { webhookEndpoint: hanging.url } })).status).toBe(200);
    for (let index = 0; index < 6; index += 1) await createCustomer(auth, `Breaker ${index}`);
    const metricsUrl = stack.healthUrl('webhooks').replace(/\/health$/, '/metrics');
    const open = `corridor_webhook_circuit_state{platform_id="${hostile.platformId}",state="OPEN"} 1`;
    await waitUntil('the hostile endpoint’s circuit to open', async () => (await (await fetch(metricsUrl)).text()).includes(open), 60_000);
    // The webhooks that came due while it was open were recorded without a request being made.
    const notSent = async (): Promise<boolean> => {
      const deliveries = (await deliveriesOf(auth, 100)).data as { webhookId: string; attemptCount: number }[];
      for (const delivery of deliveries.filter((row) => row.attemptCount > 0)) {
        const attempts = await api.call('GET', `/webhooks/deliveries/${delivery.webhookId}/attempts`, { auth });
        const withoutRequest = (attempt: { error?: string; statusCode?: number }) =>
          attempt.statusCode === undefined && attempt.error?.startsWith("not sent: the endpoint's circuit is open") === true;
        if ((attempts.body.data as { error?: string; statusCode?: number }[]).some(withoutRequest)) return true;
      }
      return false;
    };
    await waitUntil('a webhook recorded as not sent while the circuit is open', notSent, 30_000);
  }, 120_000);
});
