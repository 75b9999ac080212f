// Webhooks end to end with every app running: a local receiver verifies every signature with the
// platform's public key from the API, the sandbox test webhook, the automatic TEST on an endpoint
// change, customer status webhooks with the resource as of the event, the delivery log,
// redelivery by range, key rotation and tenancy.
import { createApi, type Credentials } from './support/api';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';
import { type Receiver, startReceiver, verifyGridSignature } from './support/webhook-receiver';
import { waitUntil } from '@corridor/testing';

let stack: StackView;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
let receiver: Receiver;
let publicKey: string;

const individual = (suffix: string) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: `wh-${suffix}`,
  region: 'US',
  fullName: `Webhook ${suffix}`,
});

beforeAll(async () => {
  stack = await sharedStack();
  api = createApi(stack, 'webhooks');
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await receiver?.close();
  await stack?.close();
});

describe('endpoint and signature', () => {
  it('exposes the platform public key, and GET /config carries the same key', async () => {
    const key = await api.call('GET', '/webhooks/signing-key', { auth: platformA });
    expect(key.status).toBe(200);
    expect(key.body.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    publicKey = key.body.publicKey;
    const config = await api.call('GET', '/config', { auth: platformA });
    expect(config.body.webhookPublicKey).toBe(publicKey);
    const other = await api.call('GET', '/webhooks/signing-key', { auth: platformB });
    expect(other.body.publicKey).not.toBe(publicKey);
  });

  it('answers 400 WEBHOOK_ENDPOINT_NOT_SET to a test before an endpoint is configured', async () => {
    const reply = await api.call('POST', '/sandbox/webhooks/test', { auth: platformB });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'WEBHOOK_ENDPOINT_NOT_SET' });
  });

  it('sends one TEST automatically when webhookEndpoint is set, signed with the platform key', async () => {
    const patched = await api.call('PATCH', '/config', { auth: platformA, body: { webhookEndpoint: receiver.url } });
    expect(patched.status).toBe(200);
    expect(patched.body.webhookPublicKey).toBe(publicKey);
    await receiver.waitFor((received) => received.some((item) => item.body.type === 'TEST'), 'the automatic TEST');
    const [test] = receiver.received;
    api.conformance.checkWebhook(test!.body);
    expect(test!.body.id).toMatch(/^Webhook:[0-9a-f-]{36}$/);
    expect(verifyGridSignature(test!.rawBody, test!.signature, publicKey)).toBe(true);
    // A tampered body no longer verifies.
    expect(verifyGridSignature(test!.rawBody.replace('"TEST"', '"TEST" '), test!.signature, publicKey)).toBe(false);
  });

  it('POST /sandbox/webhooks/test delivers a signed TEST now and reports the answer, without a loopback receiver’s body', async () => {
    const before = receiver.received.length;
    receiver.respond = () => 202;
    const reply = await api.call('POST', '/sandbox/webhooks/test', { auth: platformA });
    receiver.respond = () => 200;
    expect(reply.status).toBe(200);
    // The stack lets webhooks reach loopback (WEBHOOK_ALLOW_PRIVATE_TARGETS=true), but a private
    // address's body never goes back to the tenant: the status alone.
    expect(reply.body).toEqual({ url: receiver.url, response_status: 202 });
    expect(receiver.received).toHaveLength(before + 1);
    expect(verifyGridSignature(receiver.received[before]!.rawBody, receiver.received[before]!.signature, publicKey)).toBe(true);
  });

  it('refuses the sandbox test to a production platform with 403', async () => {
    const production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
    const reply = await api.call('POST', '/sandbox/webhooks/test', { auth: production });
    expect(reply.status).toBe(403);
  });

  it('clears webhookEndpoint with null: none in GET /config, nowhere for the sandbox test, no webhook until it is set again', async () => {
    const platform = (await stack.createPlatform()).token as Credentials;
    expect((await api.call('PATCH', '/config', { auth: platform, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
    const cleared = await api.call('PATCH', '/config', { auth: platform, body: { webhookEndpoint: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.webhookEndpoint).toBeUndefined();
    expect((await api.call('GET', '/config', { auth: platform })).body.webhookEndpoint).toBeUndefined();
    const test = await api.call('POST', '/sandbox/webhooks/test', { auth: platform });
    expect(test.body).toMatchObject({ status: 400, code: 'WEBHOOK_ENDPOINT_NOT_SET' });
    // A customer made while there is no endpoint: once its accounts are open its CustomerCreated is
    // on the event stream, ahead of the PATCH that sets the endpoint again, so it is handled without one.
    const unheard = await api.call('POST', '/customers', { auth: platform, body: individual('cleared-1') });
    await waitUntil('the accounts of the customer made without an endpoint', async () => {
      const path = `/customers/internal-accounts?customerId=${encodeURIComponent(unheard.body.id)}`;
      const accounts = await api.call('GET', path, { auth: platform });
      return accounts.body.data?.length > 0;
    });
    expect((await api.call('PATCH', '/config', { auth: platform, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
    const heard = await api.call('POST', '/customers', { auth: platform, body: individual('cleared-2') });
    const heardOf = (received: { body: { data?: { id?: string } } }[]) => received.some((item) => item.body.data?.id === heard.body.id);
    await receiver.waitFor(heardOf, 'the webhook of the customer made after the endpoint was set again');
    expect(receiver.received.filter((item) => item.body.data?.id === unheard.body.id)).toEqual([]);
    // null is the only way to clear it: an empty string is not a URL.
    expect((await api.call('PATCH', '/config', { auth: platform, body: { webhookEndpoint: '' } })).status).toBe(400);
  });
});

describe('resource webhooks', () => {
  it('sends CUSTOMER.KYC_APPROVED with the customer as created, logged as DELIVERED with its attempt', async () => {
    const created = await api.call('POST', '/customers', { auth: platformA, body: individual('one') });
    expect(created.status).toBe(201);
    const customerId = created.body.id as string;
    await receiver.waitFor((received) => received.some((item) => item.body.data?.id === customerId), 'the customer webhook');
    const webhook = receiver.received.find((item) => item.body.data?.id === customerId)!;
    api.conformance.checkWebhook(webhook.body);
    expect(webhook.body.type).toBe('CUSTOMER.KYC_APPROVED');
    expect(webhook.body.data).toEqual(created.body);
    expect(verifyGridSignature(webhook.rawBody, webhook.signature, publicKey)).toBe(true);

    const deliveries = await api.call('GET', `/webhooks/deliveries?resourceId=${encodeURIComponent(customerId)}`, { auth: platformA });
    expect(deliveries.status).toBe(200);
    await waitUntil('the delivery log to settle', async () => {
      const log = await api.call('GET', `/webhooks/deliveries?resourceId=${encodeURIComponent(customerId)}`, { auth: platformA });
      return log.body.data[0]?.status === 'DELIVERED';
    });
    const log = await api.call('GET', `/webhooks/deliveries?webhookId=${encodeURIComponent(webhook.body.id)}`, { auth: platformA });
    expect(log.body).toMatchObject({
      totalCount: 1,
      data: [
        {
          webhookId: webhook.body.id,
          type: 'CUSTOMER.KYC_APPROVED',
          resourceId: customerId,
          status: 'DELIVERED',
          attemptCount: 1,
          lastStatusCode: 200,
        },
      ],
    });
    const attempts = await api.call('GET', `/webhooks/deliveries/${webhook.body.id}/attempts`, { auth: platformA });
    expect(attempts.body.data).toEqual([expect.objectContaining({ attempt: 1, url: receiver.url, statusCode: 200 })]);

    // Tenancy: another platform neither lists nor reads it.
    expect(
      (await api.call('GET', `/webhooks/deliveries?webhookId=${encodeURIComponent(webhook.body.id)}`, { auth: platformB })).body,
    ).toMatchObject({ totalCount: 0, data: [] });
    expect((await api.call('GET', `/webhooks/deliveries/${webhook.body.id}/attempts`, { auth: platformB })).status).toBe(404);
    expect((await api.call('POST', `/webhooks/${webhook.body.id}/redeliver`, { auth: platformB })).status).toBe(404);
  });

  it('redelivers exactly the webhooks of the chosen time range, with the same ids and bodies', async () => {
    const ids: string[] = [];
    for (const suffix of ['r1', 'r2', 'r3']) {
      const created = await api.call('POST', '/customers', { auth: platformA, body: individual(suffix) });
      ids.push(created.body.id);
      await receiver.waitFor((received) => received.some((item) => item.body.data?.id === created.body.id), `the webhook of ${suffix}`);
    }
    await waitUntil('the delivery log to settle', async () =>
      (await api.call('GET', '/webhooks/deliveries?limit=100', { auth: platformA })).body.data.every(
        (row: { status: string }) => row.status !== 'PENDING',
      ),
    );
    const log = (await api.call('GET', '/webhooks/deliveries?limit=100', { auth: platformA })).body.data as {
      webhookId: string;
      resourceId: string;
      createdAt: string;
    }[];
    const second = log.find((row) => row.resourceId === ids[1])!;
    const third = log.find((row) => row.resourceId === ids[2])!;
    const chosen = log
      .filter((row) => row.createdAt >= second.createdAt && row.createdAt < third.createdAt)
      .map((row) => row.webhookId)
      .sort();
    expect(chosen).toContain(second.webhookId);
    const before = receiver.received.length;

    const reply = await api.call('POST', '/webhooks/redeliver', { auth: platformA, body: { from: second.createdAt, to: third.createdAt } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ redelivered: chosen.length, webhookIds: chosen });
    await receiver.waitFor((received) => received.length >= before + chosen.length, 'the redelivered webhooks');
    await waitUntil('the delivery log to settle', async () =>
      (await api.call('GET', '/webhooks/deliveries?limit=100', { auth: platformA })).body.data.every(
        (row: { status: string }) => row.status !== 'PENDING',
      ),
    );
    const resent = receiver.received.slice(before);
    expect(resent.map((item) => item.body.id).sort()).toEqual(chosen);
    const original = receiver.received.find((item) => item.body.id === second.webhookId)!;
    expect(resent.find((item) => item.body.id === second.webhookId)!.rawBody).toBe(original.rawBody);
  });

  it('sends INTERNAL_ACCOUNT.BALANCE_UPDATED per funding, in order, each with the balance right after it', async () => {
    const accounts = await api.call('GET', '/platform/internal-accounts?currency=USD', { auth: platformA });
    const account = accounts.body.data[0];
    expect(account).toBeDefined();
    for (const amount of [100, 250]) {
      const funded = await api.call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { auth: platformA, body: { amount } });
      expect(funded.status).toBe(200);
    }
    const ofAccount = () =>
      receiver.received.filter((item) => item.body.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED' && item.body.data?.id === account.id);
    await receiver.waitFor(() => ofAccount().length >= 2, 'both balance webhooks');
    const webhooks = ofAccount();
    // Rendered as of each event, not as of delivery: the first carries 100 although 350 is current.
    expect(webhooks.map((item) => item.body.data.balance.amount)).toEqual([100, 350]);
    expect(webhooks.map((item) => item.body.data.totalBalance.amount)).toEqual([100, 350]);
    for (const item of webhooks) {
      api.conformance.checkWebhook(item.body);
      expect(verifyGridSignature(item.rawBody, item.signature, publicKey)).toBe(true);
    }
    // Tenancy: the other platform's log has nothing of this account.
    const foreign = await api.call('GET', `/webhooks/deliveries?resourceId=${encodeURIComponent(account.id)}`, { auth: platformB });
    expect(foreign.body).toMatchObject({ totalCount: 0, data: [] });
  });

  it('refuses a redelivery that names neither a range nor a resource', async () => {
    const reply = await api.call('POST', '/webhooks/redeliver', { auth: platformA, body: { from: '2026-01-01T00:00:00Z' } });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/from and to/);
  });

  it('rotates the signing key: later webhooks verify with the new key only', async () => {
    const rotated = await api.call('POST', '/webhooks/signing-key/rotate', { auth: platformA });
    expect(rotated.status).toBe(200);
    expect(rotated.body.publicKey).not.toBe(publicKey);
    const before = receiver.received.length;
    await api.call('POST', '/sandbox/webhooks/test', { auth: platformA });
    const latest = receiver.received[before]!;
    expect(verifyGridSignature(latest.rawBody, latest.signature, rotated.body.publicKey)).toBe(true);
    expect(verifyGridSignature(latest.rawBody, latest.signature, publicKey)).toBe(false);
  });
});
