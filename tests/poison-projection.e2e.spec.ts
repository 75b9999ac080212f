import { randomUUID } from 'node:crypto';
import { createPostgresEventStore } from '@corridor/event-store';
import { until } from '@corridor/testing';
import { type Credentials, createApi } from './support/api';
import { type Stack, startStack } from './support/stack';

// The stall of issue 13, on the whole stack: one event that a read model of accounts cannot apply
// (here written straight into the store, as a bug or a bad migration would leave it). That read
// model halts alone and says so: /health is degraded and names it, /metrics counts it, the log
// names the event and the cause, a command that needs it is refused at once with a 503 naming it —
// and the rest of the service keeps serving.

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platform: Credentials;
let platformId: string;

beforeAll(async () => {
  stack = await startStack();
  api = createApi(stack, 'poison-projection');
  const created = await stack.createPlatform();
  platform = created.token as Credentials;
  platformId = created.platformId;
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
});

it('halts only the read model that cannot apply an event, loudly, while accounts keeps serving', async () => {
  // The platform's accounts open when accounts consumes PlatformCreated, a moment after the create answers.
  const accounts = await until(
    "the platform's USD internal account",
    () => api.call('GET', '/platform/internal-accounts?currency=USD', { auth: platform }),
    (reply) => reply.status === 200 && (reply.body?.data?.length ?? 0) > 0,
  );
  const usd = accounts.body.data[0] as { id: string; balance: { amount: number } };
  expect(usd?.id).toBeDefined();

  const poisonStream = `ExternalAccount:${randomUUID()}`;
  const store = createPostgresEventStore({ connectionString: stack.database.url, schema: 'accounts' });
  const requestId = randomUUID();
  const [poison] = (
    await store.appendToStream(
      poisonStream,
      [
        {
          type: 'ExternalAccountCreated',
          data: { externalAccountId: poisonStream, platformId, currency: 'USD', accountInfo: null, createdAt: new Date().toISOString() },
        },
      ],
      { expectedVersion: 0, metadata: { platformId, requestId, correlationId: requestId, actor: { kind: 'system', name: 'poison-test' } } },
    )
  ).events;
  await store.close();

  // The other read model of accounts moves on: fundings show in the balance at once.
  const funded = await api.call('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: platform, body: { amount: 1_000 } });
  expect(funded.status).toBe(200);
  expect(funded.body.balance.amount).toBe(usd.balance.amount + 1_000);
  const again = await api.call('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: platform, body: { amount: 500 } });
  expect(again.body.balance.amount).toBe(usd.balance.amount + 1_500);

  // /health of accounts: degraded (still serving), naming the read model, its event and the cause.
  const health = await until(
    'accounts /health',
    async () => {
      const response = await fetch(stack.healthUrl('accounts'));
      return { status: response.status, body: (await response.json()) as any };
    },
    (reply) => reply.body?.status === 'degraded',
  );
  expect(health.status).toBe(200);
  const projections = health.body.parts.projections;
  expect(projections).toMatchObject({ status: 'degraded', halted: ['external-accounts'] });
  expect(projections.projections['external-accounts']).toMatchObject({
    halted: true,
    lastError: {
      message: expect.stringMatching(/accountType/),
      event: { streamId: poisonStream, type: 'ExternalAccountCreated', position: poison!.globalPosition.toString() },
    },
  });
  expect(projections.projections['internal-accounts']).toMatchObject({ halted: false, lag: '0' });

  // /metrics counts it; the log names the projection, the event and the cause.
  const metrics = await (await fetch(stack.healthUrl('accounts').replace(/\/health$/, '/metrics'))).text();
  expect(metrics).toContain('corridor_projection_halted{service="accounts",projection="external-accounts"} 1');
  expect(metrics).toContain('corridor_projection_halted{service="accounts",projection="internal-accounts"} 0');
  const log = stack.logs.accounts.join('');
  expect(log).toContain(poisonStream);
  expect(log).toMatch(/Projection external-accounts is halted: it cannot apply ExternalAccountCreated/);

  // A command whose reply needs the halted read model: refused at once, naming it, with nothing half-done shown as done.
  const startedAt = Date.now();
  const refused = await api.call('POST', '/platform/external-accounts', {
    auth: platform,
    body: {
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '000123456789',
        routingNumber: '011000015',
        bankAccountType: 'CHECKING',
        bankName: 'Fed Bank',
        beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme GmbH' },
      },
    },
    headers: { 'idempotency-key': randomUUID() },
    unchecked: true,
  });
  expect(Date.now() - startedAt).toBeLessThan(3_000);
  expect(refused.body).toMatchObject({ status: 503, code: 'READ_MODEL_HALTED', message: expect.stringContaining('external-accounts') });

  // Everything else answers.
  expect((await api.call('GET', '/customers', { auth: platform })).status).toBe(200);
  expect((await api.call('GET', `/platform/internal-accounts?currency=USD`, { auth: platform })).body.data[0].balance.amount).toBe(
    usd.balance.amount + 1_500,
  );
}, 90_000);
