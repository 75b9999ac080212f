// accounts.uma-deposit.targets in the accounts service against real PostgreSQL and NATS: the
// customer's default UMA deposit external account (none, the current one after a replacement,
// none after its deletion), scoped to the asking platform. Internal accounts are opened from the
// customers service's events, which this spec does not run; the e2e suite (tests/incoming)
// covers deposits into them.
import type { INestMicroservice } from '@nestjs/common';
import {
  type CustomerWire,
  type ExternalAccountWire,
  newId,
  type RequestContext,
  subjects,
  type UmaDepositTargetsWire,
} from '@corridor/contracts';
import { createServiceApp, ServiceClient } from '@corridor/messaging';
import { deleteEventsStream, requireNats, tokenContext, uniqueSubjectPrefix, useTestDatabase } from '@corridor/testing';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';

const database = useTestDatabase();
const codec = JSONCodec();

let subjectPrefix: string;
let app: INestMicroservice;
let client: ServiceClient;
let nats: NatsConnection;
const customersOf = new Map<string, Set<string>>();

const call = <Reply>(subject: string, data: unknown, platformId: string): Promise<Reply> =>
  client.request<Reply>(subject, data, { context: tokenContext(platformId), timeoutMs: 30_000 });

const newCustomer = (platformId: string): string => {
  const customerId = newId('Customer');
  customersOf.set(platformId, (customersOf.get(platformId) ?? new Set()).add(customerId));
  return customerId;
};

const create = (platformId: string, customerId: string, accountNumber: string, defaultUmaDepositAccount: boolean, currency = 'USD') =>
  call<ExternalAccountWire>(
    subjects.accounts.externalAccount.create,
    {
      owner: 'CUSTOMER',
      customerId,
      currency,
      defaultUmaDepositAccount,
      environment: 'SANDBOX',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber,
        routingNumber: '011000015',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
      },
    },
    platformId,
  );

const targets = (platformId: string, customerId: string) =>
  call<UmaDepositTargetsWire>(subjects.accounts.umaDeposit.targets, { customerId }, platformId);

beforeAll(async () => {
  await requireNats();
  subjectPrefix = uniqueSubjectPrefix();
  const { healthPort: _healthPort, ...defaults } = loadConfig({});
  const config = { ...defaults, healthPort: 0, databaseUrl: database.url, subjectPrefix, logLevel: 'warn' };
  nats = await connect({ servers: config.natsUrl, name: 'uma-deposit-targets-int-spec' });
  nats.subscribe(`${subjectPrefix}.${subjects.customers.customer.get}`, {
    callback: (_error, message) => {
      const packet = codec.decode(message.data) as { id: string; data: { context: RequestContext; data: { customerId: string } } };
      const { context, data } = packet.data;
      const reply = customersOf.get(context.platformId)?.has(data.customerId)
        ? { response: { id: data.customerId, isDeleted: false } as Partial<CustomerWire> }
        : { err: { status: 404, code: 'USER_NOT_FOUND', message: `Customer ${data.customerId} was not found.` } };
      message.respond(codec.encode({ id: packet.id, ...reply, isDisposed: true }));
    },
  });
  app = await createServiceApp(AppModule.register(config), {
    service: 'accounts',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await app.listen();
  client = app.get(ServiceClient);
});

afterAll(async () => {
  await nats?.drain();
  await app?.close();
  await deleteEventsStream(subjectPrefix);
});

describe('accounts.uma-deposit.targets', () => {
  it('names no default until one is set, then the current default, and none after it is deleted', async () => {
    const platformId = newId('Platform');
    const customerId = newCustomer(platformId);
    expect(await targets(platformId, customerId)).toEqual({ defaultExternalAccount: null, internalAccounts: [] });
    await create(platformId, customerId, '000123450001', false);
    expect((await targets(platformId, customerId)).defaultExternalAccount).toBeNull();
    const first = await create(platformId, customerId, '000123450002', true);
    expect((await targets(platformId, customerId)).defaultExternalAccount).toEqual({ id: first.id, currency: 'USD', status: 'ACTIVE' });
    const second = await create(platformId, customerId, '000123450003', true);
    expect((await targets(platformId, customerId)).defaultExternalAccount).toEqual({ id: second.id, currency: 'USD', status: 'ACTIVE' });
    await call(subjects.accounts.externalAccount.delete, { owner: 'CUSTOMER', externalAccountId: second.id }, platformId);
    expect((await targets(platformId, customerId)).defaultExternalAccount).toBeNull();
  });

  it('shows another platform nothing of the customer', async () => {
    const platformId = newId('Platform');
    const customerId = newCustomer(platformId);
    await create(platformId, customerId, '000123450004', true);
    expect(await targets(newId('Platform'), customerId)).toEqual({ defaultExternalAccount: null, internalAccounts: [] });
  });
});
