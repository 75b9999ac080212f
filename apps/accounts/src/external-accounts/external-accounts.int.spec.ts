// Runs the accounts service in-process against real PostgreSQL and NATS and pins down what the
// external-account handlers promise under concurrency: racing defaults end with exactly one,
// racing duplicates with exactly one account, and a platform never reaches another's accounts.
//
// The customers service is another app, which this spec may not import; its one request the
// accounts service makes (customers.customer.get) is answered on the real NATS server by a
// responder that speaks that subject's wire contract. The e2e suite runs the real customers app.
import {
  type CreateExternalAccountData,
  type CustomerWire,
  type DomainError,
  type ExternalAccountWire,
  type ListExternalAccountsData,
  newId,
  type Page,
  type RequestContext,
  subjects,
} from '@corridor/contracts';
import { createPostgresEventStore } from '@corridor/event-store';
import { domainErrorOf, tokenContext, useServiceApp } from '@corridor/testing';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';

const defaults = loadConfig({});
const accounts = useServiceApp({ service: 'accounts', defaults, module: (config) => AppModule.register(config) });
const codec = JSONCodec();
const LONG_REQUEST_MS = 30_000;

let nats: NatsConnection;
/** platformId → customers the stand-in customers service knows, with their deletion flag. */
const customersOf = new Map<string, Map<string, boolean>>();

const call = <Reply>(subject: string, data: unknown, platformId: string): Promise<Reply> =>
  accounts.client.request<Reply>(subject, data, { context: tokenContext(platformId), timeoutMs: LONG_REQUEST_MS });

const newCustomer = (platformId: string, options: { deleted?: boolean } = {}): string => {
  const customerId = newId('Customer');
  const known = customersOf.get(platformId) ?? new Map<string, boolean>();
  known.set(customerId, options.deleted ?? false);
  customersOf.set(platformId, known);
  return customerId;
};

/** Answers customers.customer.get as the customers service does: the customer, or USER_NOT_FOUND for other platforms' ids. */
const serveCustomers = (): void => {
  nats.subscribe(`${accounts.subjectPrefix}.${subjects.customers.customer.get}`, {
    callback: (_error, message) => {
      const packet = codec.decode(message.data) as { id: string; data: { context: RequestContext; data: { customerId: string } } };
      const { context, data } = packet.data;
      const isDeleted = customersOf.get(context.platformId)?.get(data.customerId);
      const reply =
        isDeleted === undefined
          ? { err: { status: 404, code: 'USER_NOT_FOUND', message: `Customer ${data.customerId} was not found.` } }
          : { response: { id: data.customerId, isDeleted } as Partial<CustomerWire> };
      message.respond(codec.encode({ id: packet.id, ...reply, isDisposed: true }));
    },
  });
};

const usd = (accountNumber: string) => ({
  accountType: 'USD_ACCOUNT',
  accountNumber,
  routingNumber: '011000015',
  beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
});

const createFor = (platformId: string, data: Partial<CreateExternalAccountData> & { customerId?: string }) =>
  call<ExternalAccountWire>(
    subjects.accounts.externalAccount.create,
    {
      owner: data.customerId ? 'CUSTOMER' : 'PLATFORM',
      currency: 'USD',
      accountInfo: usd('000111222333'),
      environment: 'SANDBOX',
      ...data,
    },
    platformId,
  );

const listFor = (platformId: string, data: Partial<ListExternalAccountsData> = {}) =>
  call<Page<ExternalAccountWire>>(subjects.accounts.externalAccount.list, { owner: 'CUSTOMER', limit: 100, ...data }, platformId);

beforeAll(async () => {
  nats = await connect({ servers: defaults.natsUrl, name: 'external-accounts-int-spec' });
  serveCustomers();
});

afterAll(async () => {
  await nats?.drain();
});

describe('external accounts in the accounts service', () => {
  it('creates an ACTIVE sandbox account, reads it, lists it, deletes it softly', async () => {
    const platformId = newId('Platform');
    const customerId = newCustomer(platformId);
    const created = await createFor(platformId, { customerId, platformAccountId: 'acct-1' });
    expect(created).toMatchObject({
      customerId,
      status: 'ACTIVE',
      beneficiaryVerificationStatus: 'MATCHED',
      defaultUmaDepositAccount: false,
      platformAccountId: 'acct-1',
    });
    const ref = { owner: 'CUSTOMER', externalAccountId: created.id };
    expect(await call(subjects.accounts.externalAccount.get, ref, platformId)).toEqual(created);
    expect((await listFor(platformId, { customerId })).data).toEqual([created]);

    await call(subjects.accounts.externalAccount.delete, ref, platformId);
    expect((await domainErrorOf(call(subjects.accounts.externalAccount.get, ref, platformId))).status).toBe(404);
    expect((await domainErrorOf(call(subjects.accounts.externalAccount.delete, ref, platformId))).status).toBe(404);
    expect((await listFor(platformId, { customerId })).data).toEqual([]);
    // The stream stays: its history ends with the deletion.
    const store = createPostgresEventStore({ connectionString: accounts.databaseUrl, schema: 'accounts' });
    try {
      const { events } = await store.readStream(created.id);
      expect(events.map((event) => event.type)).toEqual([
        'ExternalAccountCreated',
        'BeneficiaryVerificationRecorded',
        'ExternalAccountStatusChanged',
        'ExternalAccountDeleted',
      ]);
    } finally {
      await store.close();
    }
    // A deleted account frees its identity: the same account can be added again.
    expect((await createFor(platformId, { customerId })).id).not.toBe(created.id);
  });

  it('ends 12 concurrent "make me the default" creates for one customer with exactly one default', async () => {
    const platformId = newId('Platform');
    const customerId = newCustomer(platformId);
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        createFor(platformId, {
          customerId,
          defaultUmaDepositAccount: true,
          accountInfo: usd(`0001112223${String(index).padStart(2, '0')}`),
        }),
      ),
    );
    expect(replies).toHaveLength(12);
    const listed = (await listFor(platformId, { customerId })).data;
    expect(listed).toHaveLength(12);
    expect(listed.filter((account) => account.defaultUmaDepositAccount)).toHaveLength(1);

    // Deleting the default leaves the customer with none.
    const [theDefault] = listed.filter((account) => account.defaultUmaDepositAccount);
    await call(subjects.accounts.externalAccount.delete, { owner: 'CUSTOMER', externalAccountId: theDefault?.id }, platformId);
    expect((await listFor(platformId, { customerId })).data.filter((account) => account.defaultUmaDepositAccount)).toEqual([]);
  });

  it('lets exactly one of 10 concurrent creates of the same account through; the rest get 409', async () => {
    const platformId = newId('Platform');
    const customerId = newCustomer(platformId);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => createFor(platformId, { customerId, accountInfo: usd('000999888777') })),
    );
    const fulfilled = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(refused.map((result) => (result.reason as DomainError).code)).toEqual(Array(9).fill('CONFLICT'));
    expect((await listFor(platformId, { customerId })).data).toHaveLength(1);
    // Another customer of the same platform may hold the same bank account (a joint account).
    expect((await createFor(platformId, { customerId: newCustomer(platformId), accountInfo: usd('000999888777') })).status).toBe('ACTIVE');
  });

  it('refuses unknown, deleted and other platforms’ customers with a 400 naming customerId, writing nothing', async () => {
    const platformId = newId('Platform');
    const otherPlatformId = newId('Platform');
    for (const customerId of [newId('Customer'), newCustomer(otherPlatformId), newCustomer(platformId, { deleted: true })]) {
      const error = await domainErrorOf(createFor(platformId, { customerId }));
      expect({ status: error.status, field: error.details?.['field'] }).toEqual({ status: 400, field: 'customerId' });
    }
    expect((await listFor(platformId)).totalCount).toBe(0);
  });

  it('never shows one platform another’s accounts, nor the customers’ routes the platform’s own', async () => {
    const platformA = newId('Platform');
    const platformB = newId('Platform');
    const customerOfA = newCustomer(platformA);
    const customerAccount = await createFor(platformA, { customerId: customerOfA });
    const platformAccount = await createFor(platformA, {
      currency: 'BTC',
      accountInfo: { accountType: 'LIGHTNING', lightningAddress: 'ada@example.com' },
    });
    expect(platformAccount).not.toHaveProperty('customerId');

    for (const [owner, externalAccountId] of [
      ['CUSTOMER', customerAccount.id],
      ['PLATFORM', platformAccount.id],
    ] as const) {
      const ref = { owner, externalAccountId };
      expect((await domainErrorOf(call(subjects.accounts.externalAccount.get, ref, platformB))).status).toBe(404);
      expect((await domainErrorOf(call(subjects.accounts.externalAccount.delete, ref, platformB))).status).toBe(404);
      // Each route family sees only its own kind of account.
      const crossed = { owner: owner === 'CUSTOMER' ? 'PLATFORM' : 'CUSTOMER', externalAccountId };
      expect((await domainErrorOf(call(subjects.accounts.externalAccount.get, crossed, platformA))).status).toBe(404);
    }
    expect((await listFor(platformB)).data).toEqual([]);
    expect((await listFor(platformB, { customerId: customerOfA })).data).toEqual([]);
    expect((await listFor(platformB, { owner: 'PLATFORM' })).data).toEqual([]);
    expect((await listFor(platformA)).data.map((account) => account.id)).toEqual([customerAccount.id]);
    expect((await listFor(platformA, { owner: 'PLATFORM' })).data.map((account) => account.id)).toEqual([platformAccount.id]);
  });
});
