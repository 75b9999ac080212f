// Runs the customers service in-process against real PostgreSQL and NATS and asks it, over NATS,
// for a customer as of a stream position: the past state, and a 404 for another platform.
import type { INestMicroservice } from '@nestjs/common';
import { type CustomerWire, DomainError, newId, type RenderCustomerAtData, subjects } from '@corridor/contracts';
import { createPostgresEventStore } from '@corridor/event-store';
import { createServiceApp, ServiceClient } from '@corridor/messaging';
import { requireNats, uniqueRedisPrefix, uniqueSubjectPrefix, useTestDatabase } from '@corridor/testing';
import { randomUUID } from 'node:crypto';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';

const database = useTestDatabase();
let app: INestMicroservice;
let client: ServiceClient;

const platformId = newId('Platform');
const customerId = newId('Customer');

const renderAt = (data: RenderCustomerAtData, asPlatform = platformId) => {
  const id = randomUUID();
  return client.request<CustomerWire>(subjects.customers.customer.renderAt, data, {
    context: { platformId: asPlatform, actor: { kind: 'system', name: 'webhooks' }, requestId: id, correlationId: id },
  });
};

beforeAll(async () => {
  await requireNats();
  const subjectPrefix = uniqueSubjectPrefix();
  // A Redis prefix of its own: the bulk-import worker this app starts must not meet other runs' jobs.
  const config = {
    ...loadConfig({ REDIS_KEY_PREFIX: uniqueRedisPrefix() }),
    healthPort: 0,
    databaseUrl: database.url,
    subjectPrefix,
    logLevel: 'warn',
  };
  app = await createServiceApp(AppModule.register(config), {
    service: 'customers',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await app.listen();
  client = app.get(ServiceClient);
  const store = createPostgresEventStore({ connectionString: database.url, schema: 'customers' });
  const metadata = { platformId, correlationId: 'c', requestId: 'r', actor: { kind: 'system' as const, name: 'test' } };
  await store.appendToStream(
    customerId,
    [
      {
        type: 'CustomerCreated',
        data: {
          customerId,
          platformId,
          customerType: 'BUSINESS',
          profile: { platformCustomerId: 'b-1', umaAddress: '$b1@x.uma.money', currencies: ['USD'] },
          verificationStatus: 'UNVERIFIED',
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      },
      {
        type: 'CustomerVerificationStatusChanged',
        data: {
          customerId,
          platformId,
          customerType: 'BUSINESS',
          from: 'UNVERIFIED',
          to: 'PENDING',
          changedAt: '2026-01-02T00:00:00.000Z',
        },
      },
      {
        type: 'CustomerVerificationStatusChanged',
        data: { customerId, platformId, customerType: 'BUSINESS', from: 'PENDING', to: 'APPROVED', changedAt: '2026-01-03T00:00:00.000Z' },
      },
    ],
    { expectedVersion: 0, metadata },
  );
  await store.close();
});

afterAll(async () => {
  await app?.close();
});

it('answers with the customer as it was after the requested event', async () => {
  const pending = await renderAt({ customerId, streamPosition: 2 });
  expect(pending).toMatchObject({ id: customerId, customerType: 'BUSINESS', kybStatus: 'PENDING', updatedAt: '2026-01-02T00:00:00.000Z' });
  const approved = await renderAt({ customerId, streamPosition: 3 });
  expect(approved.kybStatus).toBe('APPROVED');
});

it("answers 404 for another platform's customer and for a position that does not exist", async () => {
  await expect(renderAt({ customerId, streamPosition: 2 }, newId('Platform'))).rejects.toMatchObject({
    code: 'USER_NOT_FOUND',
    status: 404,
  });
  await expect(renderAt({ customerId, streamPosition: 9 })).rejects.toBeInstanceOf(DomainError);
});
