// accounts.uma-deposit.targets in the accounts service against real PostgreSQL and NATS: the
// customer's default UMA deposit external account (none, the current one after a replacement,
// none after its deletion), scoped to the asking platform. Internal accounts are opened from the
// customers service's events, which this spec does not run; the e2e suite (tests/incoming)
// covers deposits into them.
import {
  type CustomerWire,
  type ExternalAccountWire,
  newId,
  type RequestContext,
  subjects,
  type UmaDepositTargetsWire,
} from '@corridor/contracts';
import { tokenContext, useServiceApp } from '@corridor/testing';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';

const defaults = loadConfig({});
const accounts = useServiceApp({ service: 'accounts', defaults, module: (config) => AppModule.register(config) });
const codec = JSONCodec();

let nats: NatsConnection;
const customersOf = new Map<string, Set<string>>();

const call = <Reply>(subject: string, data: unknown, platformId: string): Promise<Reply> =>
  accounts.client.request<Reply>(subject, data, { context: tokenContext(platformId), timeoutMs: 30_000 });

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

// A stand-in customers service on the real NATS server, answering customers.customer.get for the known customers.
beforeAll(async () => {
  nats = await connect({ servers: defaults.natsUrl, name: 'uma-deposit-targets-int-spec' });
  nats.subscribe(`${accounts.subjectPrefix}.${subjects.customers.customer.get}`, {
    callback: (_error, message) => {
      const packet = codec.decode(message.data) as { id: string; data: { context: RequestContext; data: { customerId: string } } };
      const { context, data } = packet.data;
      const reply = customersOf.get(context.platformId)?.has(data.customerId)
        ? { response: { id: data.customerId, isDeleted: false } as Partial<CustomerWire> }
        : { err: { status: 404, code: 'USER_NOT_FOUND', message: `Customer ${data.customerId} was not found.` } };
      message.respond(codec.encode({ id: packet.id, ...reply, isDisposed: true }));
    },
  });
});

afterAll(async () => {
  await nats?.drain();
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
