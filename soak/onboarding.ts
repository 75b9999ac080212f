import { eventually } from '@corridor/testing';
import { INCOMING_SENDER, type Operation, type SoakContext } from './context';
import type { SoakCustomer, SoakPlatform } from './workload';

// Onboarding traffic: individuals (each read and paid right after its 201), businesses with their
// owners, documents and verification, bulk CSV imports, bank accounts, invitations, tokens, config.

/** Sandbox rail outcomes by the last three digits of an account number: mostly success, some failures and late failures. */
const BANK_SUFFIXES = ['001', '001', '001', '001', '002', '005'];
const PDF = Buffer.concat([
  Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n', 'latin1'),
  Buffer.alloc(2000, 0x20),
  Buffer.from('\n%%EOF\n'),
]);
const CSV_HEADER =
  'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email,businessLegalName,' +
  'businessTaxId,businessIncorporatedOn';
const ACCOUNTS_OPEN_WAIT_MS = 15_000;
const personalInfo = (lastName: string) => ({
  firstName: 'Jane',
  lastName,
  birthDate: '1978-06-15',
  nationality: 'US',
  email: 'jane@example.com',
  phoneNumber: '+14155550192',
  address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
  idType: 'SSN',
  identifier: '123-45-6789',
});

export const waitForAccounts = async (ctx: SoakContext, platform: SoakPlatform, customer: SoakCustomer): Promise<void> => {
  const { client, stats } = ctx;
  const opened = await eventually(
    async () => {
      const reply = await client.call(
        'GET /customers/internal-accounts',
        platform.auth,
        'GET',
        `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`,
      );
      const accounts = (reply.body?.data ?? []) as { id: string; balance: { currency: { code: string } } }[];
      const idOf = (code: string) => accounts.find((account) => account.balance.currency.code === code)?.id;
      return { usd: idOf('USD'), eur: idOf('EUR') };
    },
    (found) => Boolean(found.usd && found.eur),
    { timeoutMs: ACCOUNTS_OPEN_WAIT_MS, intervalMs: 500 },
  );
  customer.usd = opened.usd;
  customer.eur = opened.eur;
  if (customer.usd && customer.eur) return;
  platform.customersWithoutAccounts += 1;
  stats.surprise('internal accounts not opened within 15 s of POST /customers', customer.id);
};

/** Half the time a receive by customer id, else a fund of its USD account: either must succeed at once. */
export const payRightAfterCreate = async (ctx: SoakContext, platform: SoakPlatform, customer: SoakCustomer): Promise<void> => {
  const { client, random, expect } = ctx;
  const seen = platform.readAfterCreate;
  if (random() < 0.5) {
    seen.receives += 1;
    const reply = await client.call('POST /sandbox/uma/receive (right after create)', platform.auth, 'POST', '/sandbox/uma/receive', {
      body: { senderUmaAddress: INCOMING_SENDER, customerId: customer.id, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1_000 },
    });
    if (reply.status === 200 || reply.status === 201) platform.transactionIds.add(reply.body.id);
    else if (reply.status > 0 && reply.status < 500) {
      seen.receiveMisses += 1;
      seen.examples.push(`receive to ${customer.id} right after its 201: ${reply.status} ${reply.text.slice(0, 160)}`);
    } else expect('POST /sandbox/uma/receive (right after create)', reply, [200, 201]);
  } else if (customer.usd) {
    seen.funds += 1;
    const reply = await client.call(
      'POST /sandbox/internal-accounts/{id}/fund (right after create)',
      platform.auth,
      'POST',
      `/sandbox/internal-accounts/${customer.usd}/fund`,
      { body: { amount: 10_000 } },
    );
    if (reply.status === 200) customer.funded = true;
    else if (reply.status > 0 && reply.status < 500) {
      seen.fundMisses += 1;
      seen.examples.push(`fund of ${customer.usd} right after its customer's 201: ${reply.status} ${reply.text.slice(0, 160)}`);
    } else expect('POST /sandbox/internal-accounts/{id}/fund (right after create)', reply, [200]);
  }
};

/** Lists the new customer's accounts once, right after the 201 (a miss is counted), pays it, then waits for what is missing. */
export const readRightAfterCreate = async (ctx: SoakContext, platform: SoakPlatform, customer: SoakCustomer): Promise<void> => {
  const { client, expect } = ctx;
  const seen = platform.readAfterCreate;
  seen.creates += 1;
  const reply = await client.call(
    'GET /customers/internal-accounts (right after create)',
    platform.auth,
    'GET',
    `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`,
  );
  const accounts = (reply.body?.data ?? []) as { id: string; balance: { currency: { code: string } } }[];
  customer.usd = accounts.find((account) => account.balance.currency.code === 'USD')?.id;
  customer.eur = accounts.find((account) => account.balance.currency.code === 'EUR')?.id;
  if (reply.status === 200 && !(customer.usd && customer.eur)) {
    seen.listMisses += 1;
    seen.examples.push(`${customer.id} listed ${accounts.length} internal accounts right after its 201`);
  } else if (reply.status !== 200) expect('GET /customers/internal-accounts (right after create)', reply, [200]);
  await payRightAfterCreate(ctx, platform, customer);
  if (!(customer.usd && customer.eur)) await waitForAccounts(ctx, platform, customer);
};

export const createCustomer = async (ctx: SoakContext, platform: SoakPlatform): Promise<SoakCustomer | undefined> => {
  const { client, runTag, next, expect } = ctx;
  const n = next();
  const umaAddress = `$soak${n}.${runTag}@corridor.uma.money`;
  const reply = await client.call('POST /customers', platform.auth, 'POST', '/customers', {
    body: {
      customerType: 'INDIVIDUAL',
      fullName: `Soak Person ${n}`,
      platformCustomerId: `soak-${runTag}-${n}`,
      umaAddress,
      currencies: ['USD', 'EUR'],
    },
  });
  if (!expect('POST /customers', reply, [201])) return undefined;
  const customer: SoakCustomer = { id: reply.body.id, umaAddress, banks: [], funded: false };
  platform.customerIds.add(customer.id);
  await readRightAfterCreate(ctx, platform, customer);
  platform.customers.push(customer);
  return customer;
};

export const bankAccount = async (
  ctx: SoakContext,
  platform: SoakPlatform,
  customer: SoakCustomer,
  suffix = ctx.pick(BANK_SUFFIXES)!,
): Promise<string | undefined> => {
  const { client, next, expect } = ctx;
  const accountNumber = `4${String(next()).padStart(7, '0')}0${suffix}`;
  const reply = await client.call('POST /customers/external-accounts', platform.auth, 'POST', '/customers/external-accounts', {
    body: {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber,
        routingNumber: '011000015',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
      },
    },
  });
  if (!expect('POST /customers/external-accounts', reply, [201])) return undefined;
  platform.externalAccountIds.push(reply.body.id);
  customer.banks.push(reply.body.id);
  return reply.body.id as string;
};

const runBusiness = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, runTag, next, expect } = ctx;
  const n = next();
  const created = await client.call('POST /customers (business)', platform.auth, 'POST', '/customers', {
    body: {
      customerType: 'BUSINESS',
      platformCustomerId: `soak-biz-${runTag}-${n}`,
      businessInfo: {
        legalName: `Soak Corp ${n}`,
        incorporatedOn: '2015-06-01',
        taxId: '12-3456789',
        registrationNumber: `REG-${n}`,
      },
    },
  });
  if (!expect('POST /customers (business)', created, [201])) return;
  const customerId = created.body.id as string;
  platform.customerIds.add(customerId);
  platform.businesses.push(customerId);
  const owner = await client.call('POST /beneficial-owners', platform.auth, 'POST', '/beneficial-owners', {
    body: { customerId, roles: ['UBO', 'CONTROL_PERSON'], ownershipPercentage: 60, personalInfo: personalInfo('Smith') },
  });
  expect('POST /beneficial-owners', owner, [201]);
  const form = new FormData();
  for (const [name, value] of Object.entries({ documentHolder: customerId, documentType: 'PASSPORT', country: 'US' }))
    form.append(name, value);
  form.append('file', new Blob([new Uint8Array(PDF)]), 'scan.pdf');
  expect('POST /documents', await client.call('POST /documents', platform.auth, 'POST', '/documents', { form }), [201]);
  expect(
    'POST /verifications',
    await client.call('POST /verifications', platform.auth, 'POST', '/verifications', { body: { customerId } }),
    [200, 201],
  );
};

const runBulkCsv = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, runTag, next, expect } = ctx;
  const run = `${runTag}${next()}`;
  const rows = Array.from(
    { length: 5 },
    (_, n) =>
      `$ind${n}.${run}@bulk.example.com,ind-${run}-${n},INDIVIDUAL,Person ${n},1980-01-15,${n} Main St,San ` +
      `Francisco,CA,94105,US,p${n}@example.com,,,`,
  );
  const boundary = `----soak${run}`;
  const rawBody = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.from([CSV_HEADER, ...rows].join('\n') + '\n'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const reply = await client.call('POST /customers/bulk/csv', platform.auth, 'POST', '/customers/bulk/csv', {
    rawBody,
    contentType: `multipart/form-data; boundary=${boundary}`,
  });
  if (expect('POST /customers/bulk/csv', reply, [202])) platform.bulkJobs.push(reply.body.jobId);
};

const runExternalAccount = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { pick, ready } = ctx;
  const customer = pick(ready(platform));
  if (customer) await bankAccount(ctx, platform, customer);
};

const runInvitation = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, platforms, random, next, pick, expect } = ctx;
  const customer = pick(platform.customers);
  if (!customer) return;
  const created = await client.call('POST /invitations', platform.auth, 'POST', '/invitations', {
    body: { inviterUma: customer.umaAddress, firstName: 'Bob' },
  });
  if (!expect('POST /invitations', created, [201])) return;
  const code = created.body.code as string;
  platform.invitationCodes.push(code);
  expect('GET /invitations/{code}', await client.call('GET /invitations/{code}', platform.auth, 'GET', `/invitations/${code}`), [200]);
  const other = pick(platforms.filter((candidate) => candidate !== platform)) ?? platform;
  if (random() < 0.5)
    expect(
      'POST /invitations/{code}/claim',
      await client.call('POST /invitations/{code}/claim', other.auth, 'POST', `/invitations/${code}/claim`, {
        body: { inviteeUma: `$invitee${next()}@other.example` },
      }),
      [200],
    );
  else
    expect(
      'POST /invitations/{code}/cancel',
      await client.call('POST /invitations/{code}/cancel', platform.auth, 'POST', `/invitations/${code}/cancel`),
      [200],
    );
};

const runToken = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, next, expect } = ctx;
  const created = await client.call('POST /tokens', platform.auth, 'POST', '/tokens', {
    body: { name: `soak ${next()}`, permissions: ['VIEW'] },
  });
  if (!expect('POST /tokens', created, [201])) return;
  expect('GET /tokens/{id}', await client.call('GET /tokens/{id}', platform.auth, 'GET', `/tokens/${created.body.id}`), [200]);
  expect('DELETE /tokens/{id}', await client.call('DELETE /tokens/{id}', platform.auth, 'DELETE', `/tokens/${created.body.id}`), [204]);
};

const runConfig = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, expect } = ctx;
  expect(
    'PATCH /config',
    await client.call('PATCH /config', platform.auth, 'PATCH', '/config', { body: { webhookEndpoint: platform.receiver.url } }),
    [200],
  );
};

export const onboardingOperations = (ctx: SoakContext): Record<string, Operation> => ({
  business: { weight: 2, run: (platform) => runBusiness(ctx, platform) },
  bulkCsv: { weight: 0.5, run: (platform) => runBulkCsv(ctx, platform) },
  externalAccount: { weight: 3, run: (platform) => runExternalAccount(ctx, platform) },
  invitation: { weight: 1.5, run: (platform) => runInvitation(ctx, platform) },
  token: { weight: 0.5, run: (platform) => runToken(ctx, platform) },
  config: { weight: 0.3, run: (platform) => runConfig(ctx, platform) },
});
