// Runs the customers service in-process against real PostgreSQL and NATS (tiny platform and
// accounts services answer the settings and the accounts requests) and pins down what only storage
// shows of POST /customers (decision 0053): a new customer and both of its claims in one
// transaction; a taken value answers the same 409 and leaves no claim; an abandoned claim is still
// taken over through the one-stream-at-a-time path.
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import {
  type CreateCustomerData,
  type CustomerWire,
  DomainError,
  newId,
  type OpenCustomerAccountsReply,
  type PlatformConfigWire,
  type RenderCustomerAtData,
  type RequestContext,
  subjects,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createServiceApp, ServiceClient } from '@corridor/messaging';
import { requireNats, startServiceApp, uniqueRedisPrefix, uniqueSubjectPrefix, useTestDatabase } from '@corridor/testing';
import { randomUUID } from 'node:crypto';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { toIntegrationEvent } from '../integration-events';

const database = useTestDatabase();
const platformId = newId('Platform');
let customers: INestMicroservice;
let neighbours: INestMicroservice;
let client: ServiceClient;
let eventSourcing: EventSourcing;

@Controller()
class SandboxNeighbours {
  @MessagePattern(subjects.platform.platform.get)
  platform(): PlatformConfigWire {
    const at = '2026-01-01T00:00:00.000Z';
    return {
      id: 'PlatformConfig:1',
      platformId,
      environment: 'SANDBOX',
      umaDomain: 'int.sandbox.uma.money',
      proxyUmaSubdomain: 'int',
      supportedCurrencies: [{ currencyCode: 'USD' } as never],
      isRegulatedFinancialInstitution: false,
      createdAt: at,
      updatedAt: at,
    };
  }

  @MessagePattern(subjects.accounts.internalAccount.openForCustomer)
  openAccounts(): OpenCustomerAccountsReply {
    return { accountIds: [] };
  }
}
@Module({ controllers: [SandboxNeighbours] })
class SandboxNeighboursModule {}

const context = (): RequestContext => {
  const id = randomUUID();
  return { platformId, actor: { kind: 'system', name: 'int-spec' }, requestId: id, correlationId: id };
};

const individual = (platformCustomerId: string, extra: Partial<CreateCustomerData> = {}): CreateCustomerData => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId,
  region: 'US',
  fullName: `Person ${platformCustomerId}`,
  birthDate: '1990-01-15',
  nationality: 'US',
  address: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
  ...extra,
});

const create = (data: CreateCustomerData) =>
  client.request<CustomerWire>(subjects.customers.customer.create, data, { context: context(), timeoutMs: 10_000 });

/** The customers service's events of a customer and of the values it claims, each with its writing transaction. */
const storedFor = async (customerId: string) =>
  (
    await eventSourcing.pool.query<{ stream_id: string; type: string; transaction_id: string }>(
      `SELECT stream_id, type, transaction_id::text FROM customers.events WHERE stream_id = $1 OR data->>'ownerId' = $1
        ORDER BY global_position`,
      [customerId],
    )
  ).rows;

const commitsSoFar = async (): Promise<number> => {
  // Statistics reach pg_stat_database when a backend reports them (at most once a second while busy).
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await eventSourcing.pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await eventSourcing.pool.query<{ commits: string }>(
    'SELECT xact_commit::text AS commits FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]?.commits ?? 0);
};

beforeAll(async () => {
  await requireNats();
  const subjectPrefix = uniqueSubjectPrefix();
  const defaults = loadConfig({ REDIS_KEY_PREFIX: uniqueRedisPrefix() });
  neighbours = await createServiceApp(SandboxNeighboursModule, {
    service: 'platform',
    natsUrl: defaults.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await neighbours.listen();
  customers = await startServiceApp(
    { service: 'customers', defaults, module: (config) => AppModule.register(config) },
    { databaseUrl: database.url, subjectPrefix },
  );
  client = customers.get(ServiceClient);
  eventSourcing = customers.get(EventSourcing);
}, 60_000);

afterAll(async () => {
  await customers?.close();
  await neighbours?.close();
});

it('records a new customer and both of its claims in one transaction, and answers it from the read model', async () => {
  const created = await create(individual(`one-${randomUUID().slice(0, 8)}`));
  const stored = await storedFor(created.id);
  expect(stored.map(({ type }) => type).sort()).toEqual([
    'CustomerCreated',
    'CustomerVerificationStatusChanged',
    'UniqueValueClaimed',
    'UniqueValueClaimed',
  ]);
  expect(new Set(stored.map(({ transaction_id }) => transaction_id)).size).toBe(1);
  // Read-your-writes: the read model shows it the moment the create answers.
  const read = await client.request<CustomerWire>(subjects.customers.customer.get, { customerId: created.id }, { context: context() });
  expect(read).toEqual(created);
});

it('publishes a new customer with its KYC change, the same bytes renderAt answers (decision 0057)', async () => {
  const created = await create(individual(`published-${randomUUID().slice(0, 8)}`));
  const { events } = await eventSourcing.store.readStream(created.id);
  expect(events.map((event) => event.type)).toEqual(['CustomerCreated', 'CustomerVerificationStatusChanged']);
  const published = events.map((event) => (toIntegrationEvent(event)?.payload as { data: Record<string, unknown> }).data['customer']);
  const rendered = await client.request<CustomerWire>(
    subjects.customers.customer.renderAt,
    { customerId: created.id, streamPosition: 2 } satisfies RenderCustomerAtData,
    { context: context() },
  );
  // CustomerCreated announces no webhook; the APPROVED change's CUSTOMER.KYC_APPROVED shows what the create answered.
  expect(published[0]).toBeUndefined();
  expect(JSON.stringify(published[1])).toBe(JSON.stringify(rendered));
  expect(published[1]).toEqual(created);
});

it('answers a taken UMA address with the same 409 and leaves no claim of the refused create behind', async () => {
  const run = randomUUID().slice(0, 8);
  const held = await create(individual(`held-${run}`));
  const refused = create(individual(`refused-${run}`, { umaAddress: held.umaAddress }));
  await expect(refused).rejects.toBeInstanceOf(DomainError);
  await expect(refused).rejects.toMatchObject({
    code: 'UMA_ADDRESS_EXISTS',
    status: 409,
    message: `The UMA address ${held.umaAddress} is already taken. Choose another or omit umaAddress to get a generated one.`,
  });
  const { rows } = await eventSourcing.pool.query<{ type: string }>(
    `SELECT DISTINCT ON (stream_id) type FROM customers.events WHERE stream_id = $1 ORDER BY stream_id, stream_position DESC`,
    [`PlatformCustomerId:${platformId}:refused-${run}`],
  );
  // No stream, or one whose last word is the release: the refused create holds nothing.
  expect(rows.filter(({ type }) => type !== 'UniqueValueReleased')).toEqual([]);
  expect((await create(individual(`refused-${run}`))).platformCustomerId).toBe(`refused-${run}`);
  // The held address is still its first owner's.
  const uma = (await eventSourcing.store.readStream(`UmaAddress:${held.umaAddress.toLowerCase()}`)).events;
  expect(uma.map((event) => [event.type, event.data['ownerId']])).toEqual([['UniqueValueClaimed', held.id]]);
});

it('takes over a value whose claim was abandoned by a create that never came to exist', async () => {
  const run = randomUUID().slice(0, 8);
  const umaAddress = `$abandoned.${run}@int.sandbox.uma.money`;
  const gone = newId('Customer');
  const key = `UmaAddress:${umaAddress}`;
  const metadata = { ...context(), occurredAt: new Date(Date.now() - 10 * 60_000).toISOString() };
  await eventSourcing.store.appendToStream(key, [{ type: 'UniqueValueClaimed', data: { key, ownerId: gone } }], {
    expectedVersion: 0,
    metadata,
  });
  const created = await create(individual(`taker-${run}`, { umaAddress }));
  expect(created.umaAddress).toBe(umaAddress);
  expect((await eventSourcing.store.readStream(key)).events.map((event) => event.data['ownerId'])).toEqual([gone, created.id]);
});

it('costs fewer commits per customer (printed for the report)', async () => {
  const count = 50;
  const before = await commitsSoFar();
  for (let index = 0; index < count; index += 1) await create(individual(`count-${randomUUID().slice(0, 8)}`));
  const after = await commitsSoFar();
  console.info(`customers database: ${((after - before) / count).toFixed(2)} commits per created customer over ${count}`);
  expect(after).toBeGreaterThan(before);
}, 120_000);
