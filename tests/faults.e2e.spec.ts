// What an operator sees when a service dies: the gateway answers at once with a 503 error body
// instead of hanging, and after a restart requests succeed with no event lost or duplicated.
import { connect, type NatsConnection } from 'nats';
import { Client } from 'pg';
import { eventsStreamName } from '@corridor/contracts';
import { createApi, type Credentials } from './support/api';
import { type Stack, startStack } from './support/stack';
import { eventually } from '@corridor/testing';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let admin: Credentials;
let nats: NatsConnection;

const customer = (suffix: string) => ({ customerType: 'INDIVIDUAL', platformCustomerId: `fault-${suffix}`, fullName: `Fault ${suffix}` });

/** Customer events in the store of record, and how many of them JetStream carries. */
const eventCounts = async (): Promise<{ stored: number; published: number }> => {
  const db = new Client({ connectionString: stack.database.url });
  await db.connect();
  try {
    const stored = await db.query<{ count: string }>(`SELECT count(*) FROM customers.events WHERE type LIKE 'Customer%'`);
    const manager = await nats.jetstreamManager();
    const stream = eventsStreamName(stack.subjectPrefix);
    const info = await manager.streams.info(stream, { subjects_filter: `${stack.subjectPrefix}.events.customers.>` });
    const published = Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
    return { stored: Number(stored.rows[0]!.count), published };
  } finally {
    await db.end();
  }
};

beforeAll(async () => {
  stack = await startStack();
  api = createApi(stack, 'faults');
  admin = (await stack.createPlatform()).token as Credentials;
  nats = await connect(stack.bus.harness);
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await nats?.close();
  await stack?.close();
});

it('answers 503 promptly while the customers service is down, and recovers after a restart', async () => {
  for (const index of [1, 2, 3])
    expect((await api.call('POST', '/customers', { auth: admin, body: customer(`before-${index}`) })).status).toBe(201);
  await stack.stop('customers');

  const startedAt = Date.now();
  const down = await api.call('GET', '/customers', { auth: admin });
  const elapsedMs = Date.now() - startedAt;
  expect(down.status).toBe(503);
  expect(down.body).toMatchObject({ status: 503, code: expect.any(String), message: expect.stringMatching(/customers/i) });
  // Prompt means well before the request timeout a client would otherwise wait out.
  expect(elapsedMs).toBeLessThan(4_000);
  const health = await fetch(`${stack.gatewayUrl}/health`);
  expect(health.status).toBe(503);
  expect(await health.json()).toMatchObject({ services: { customers: 'unavailable', platform: 'ok' } });

  await stack.start('customers');
  for (const index of [1, 2, 3])
    expect((await api.call('POST', '/customers', { auth: admin, body: customer(`after-${index}`) })).status).toBe(201);
  const listed = await api.call('GET', '/customers?limit=100', { auth: admin });
  expect(listed.body.data.map((c: { platformCustomerId: string }) => c.platformCustomerId).sort()).toEqual(
    ['after-1', 'after-2', 'after-3', 'before-1', 'before-2', 'before-3'].map((suffix) => `fault-${suffix}`),
  );

  // The relay publishes from the store with the event id as message id: every stored event
  // reaches JetStream exactly once, across the restart.
  const counts = await eventually(eventCounts, ({ published, stored }) => published === stored, 10_000);
  expect(counts.stored).toBe(12); // six creates, each CustomerCreated + CustomerVerificationStatusChanged
  expect(counts.published).toBe(counts.stored);
});
