import { eventually } from '@corridor/testing';
import { createAgentOperations, type SoakAgent } from './agents';
import type { SoakClient, Credentials, Reply } from './client';
import type { SoakReceiver } from './receiver';
import { emptyReadAfterCreate, type ReadAfterCreate } from './consistency';
import type { SoakStats } from './stats';
import { createWalletOperations } from './wallets';

// What the virtual users do: every part of the API at once, on every platform, each operation
// picked by weight. The state each platform builds up (customers, accounts, transactions) is what
// later operations act on and what the end checks compare with the store.

export type SoakCustomer = { id: string; umaAddress: string; usd?: string; eur?: string; banks: string[]; funded: boolean };
export type SoakPlatform = {
  name: string;
  platformId: string;
  auth: Credentials;
  receiver: SoakReceiver;
  customers: SoakCustomer[];
  businesses: string[];
  /** Every customer id a create answered (individuals, businesses). */
  customerIds: Set<string>;
  /** Rows the bulk jobs reported imported. */
  bulkJobs: string[];
  transactionIds: Set<string>;
  /** Transactions of quotes the users never executed: PENDING until they expire, by design. */
  quotesNotExecuted: Set<string>;
  externalAccountIds: string[];
  invitationCodes: string[];
  hot?: { customerId: string; usd: string; bank: string };
  customersWithoutAccounts: number;
  /** Every card an issue answered (or a retried issue's 409 found by its platformCardId), with the state last seen. */
  cards: SoakCard[];
  /** Card transactions the authorization simulator answered, by id. */
  cardTransactions: Map<string, SoakCardTransaction>;
  /** Every agent a create answered, with what its users saw (soak/agents.ts). */
  agents: SoakAgent[];
  /** Agent actions the platform sent an approve or reject for (answered or not). */
  decidedActions: Set<string>;
  /** POST /agents whose answer never came (5xx after every retry): each may have made an agent. */
  agentCreatesLost: number;
  /** What the reads and payments right after each POST /customers saw (soak/consistency.ts judges it). */
  readAfterCreate: ReadAfterCreate;
};

export const newSoakPlatformState = () => ({
  customers: [],
  businesses: [],
  customerIds: new Set<string>(),
  bulkJobs: [],
  transactionIds: new Set<string>(),
  quotesNotExecuted: new Set<string>(),
  externalAccountIds: [],
  invitationCodes: [],
  customersWithoutAccounts: 0,
  cards: [],
  cardTransactions: new Map<string, SoakCardTransaction>(),
  agents: [],
  decidedActions: new Set<string>(),
  agentCreatesLost: 0,
  readAfterCreate: emptyReadAfterCreate(),
});

export type SoakCard = { id: string; customerId: string; account: string; platformCardId: string; state: string };
/** What the users did to a card transaction; `busy` while a simulator call on it is in flight. */
export type SoakCardTransaction = {
  id: string;
  cardId: string;
  account: string;
  authorized: number;
  settled: number;
  returned: number;
  status: string;
  busy: boolean;
};

export type Random = () => number;
export type Workload = ReturnType<typeof createWorkload>;

/** Sandbox rail outcomes by the last three digits of an account number: mostly success, some failures and late failures. */
const BANK_SUFFIXES = ['001', '001', '001', '001', '002', '005'];
const INCOMING_SENDER = '$success.eur@sandbox.uma.money';
const PDF = Buffer.concat([
  Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n', 'latin1'),
  Buffer.alloc(2000, 0x20),
  Buffer.from('\n%%EOF\n'),
]);
const HOT_BURST = 16;
/** The sandbox issuer's platformCardId suffixes: 001 stays PENDING_ISSUE, 002 is rejected (CLOSED), 005 activates after 30 s; anything else at once. */
const CARD_SUFFIXES = ['001', '002', '005', 'x', 'x', 'x', 'x', 'x', 'x', 'x'];
/** A merchant descriptor without the simulator's suffix magic (its last three characters are not digits). */
const MERCHANT = { descriptor: 'SOAK COFFEE SF' };
/** Declines are outcomes a card user expects (no money moved), not errors. */
const CARD_DECLINES = new Set(['INSUFFICIENT_FUNDS', 'CARD_PAUSED']);
const CSV_HEADER =
  'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email,businessLegalName,businessTaxId,businessIncorporatedOn';
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

export const createWorkload = (client: SoakClient, stats: SoakStats, platforms: SoakPlatform[], random: Random, runTag: string) => {
  let sequence = 0;
  const next = () => (sequence += 1);
  const pick = <T>(items: readonly T[]): T | undefined => (items.length === 0 ? undefined : items[Math.floor(random() * items.length)]);
  /** Records an answer the scenario did not expect (a 5xx is judged separately, against the chaos windows). */
  const expect = (operation: string, reply: Reply, statuses: number[]): boolean => {
    if (statuses.includes(reply.status)) return true;
    if (reply.status < 500 && reply.status !== 0) stats.surprise(`${operation} answered ${reply.status}`, reply.text);
    else stats.surprise(`${operation} failed after retries (${reply.status})`, reply.text);
    return false;
  };
  const ready = (platform: SoakPlatform) => platform.customers.filter((customer) => customer.usd && customer.eur);

  const waitForAccounts = async (platform: SoakPlatform, customer: SoakCustomer): Promise<void> => {
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
  const payRightAfterCreate = async (platform: SoakPlatform, customer: SoakCustomer): Promise<void> => {
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
  const readRightAfterCreate = async (platform: SoakPlatform, customer: SoakCustomer): Promise<void> => {
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
    await payRightAfterCreate(platform, customer);
    if (!(customer.usd && customer.eur)) await waitForAccounts(platform, customer);
  };

  const createCustomer = async (platform: SoakPlatform): Promise<SoakCustomer | undefined> => {
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
    await readRightAfterCreate(platform, customer);
    platform.customers.push(customer);
    return customer;
  };

  const bankAccount = async (
    platform: SoakPlatform,
    customer: SoakCustomer,
    suffix = pick(BANK_SUFFIXES)!,
  ): Promise<string | undefined> => {
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

  const fund = async (platform: SoakPlatform, accountId: string, amount: number): Promise<boolean> =>
    expect(
      'POST /sandbox/internal-accounts/{id}/fund',
      await client.call(
        'POST /sandbox/internal-accounts/{id}/fund',
        platform.auth,
        'POST',
        `/sandbox/internal-accounts/${accountId}/fund`,
        { body: { amount } },
      ),
      [200],
    );

  const transferOut = async (
    platform: SoakPlatform,
    source: string,
    destination: string,
    amount: number,
    operation = 'POST /transfer-out',
  ): Promise<void> => {
    const reply = await client.call(operation, platform.auth, 'POST', '/transfer-out', {
      body: { source: { accountId: source }, destination: { accountId: destination }, amount },
    });
    // 400: a shortfall on a busy account, refused without moving money.
    if (expect(operation, reply, [201, 400]) && reply.status === 201) platform.transactionIds.add(reply.body.id);
  };

  const operations: Record<string, { weight: number; run: (platform: SoakPlatform) => Promise<void> }> = {
    customer: { weight: 8, run: async (platform) => void (await createCustomer(platform)) },
    business: {
      weight: 2,
      run: async (platform) => {
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
      },
    },
    bulkCsv: {
      weight: 0.5,
      run: async (platform) => {
        const run = `${runTag}${next()}`;
        const rows = Array.from(
          { length: 5 },
          (_, n) =>
            `$ind${n}.${run}@bulk.example.com,ind-${run}-${n},INDIVIDUAL,Person ${n},1980-01-15,${n} Main St,San Francisco,CA,94105,US,p${n}@example.com,,,`,
        );
        const boundary = `----soak${run}`;
        const rawBody = Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n`,
          ),
          Buffer.from([CSV_HEADER, ...rows].join('\n') + '\n'),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        const reply = await client.call('POST /customers/bulk/csv', platform.auth, 'POST', '/customers/bulk/csv', {
          rawBody,
          contentType: `multipart/form-data; boundary=${boundary}`,
        });
        if (expect('POST /customers/bulk/csv', reply, [202])) platform.bulkJobs.push(reply.body.jobId);
      },
    },
    externalAccount: {
      weight: 3,
      run: async (platform) => {
        const customer = pick(ready(platform));
        if (customer) await bankAccount(platform, customer);
      },
    },
    fund: {
      weight: 4,
      run: async (platform) => {
        const customer = pick(ready(platform));
        if (customer?.usd && (await fund(platform, customer.usd, 200_000))) customer.funded = true;
      },
    },
    quote: {
      weight: 5,
      run: async (platform) => {
        const customer = pick(ready(platform).filter((candidate) => candidate.funded));
        if (!customer) return;
        const quote = await client.call('POST /quotes', platform.auth, 'POST', '/quotes', {
          body: {
            source: { sourceType: 'ACCOUNT', accountId: customer.usd },
            destination: { destinationType: 'ACCOUNT', accountId: customer.eur },
            lockedCurrencySide: 'SENDING',
            lockedCurrencyAmount: 1_000,
          },
        });
        if (!expect('POST /quotes', quote, [200, 201])) return;
        const transactionId = quote.body.transactionId as string;
        platform.transactionIds.add(transactionId);
        if (random() < 0.25) {
          platform.quotesNotExecuted.add(transactionId);
          return;
        }
        expect(
          'POST /quotes/{id}/execute',
          await client.call('POST /quotes/{id}/execute', platform.auth, 'POST', `/quotes/${quote.body.id}/execute`),
          [200, 201, 400],
        );
      },
    },
    transferOut: {
      weight: 4,
      run: async (platform) => {
        const customer = pick(ready(platform).filter((candidate) => candidate.funded && candidate.banks.length > 0));
        if (customer?.usd) await transferOut(platform, customer.usd, pick(customer.banks)!, 500);
      },
    },
    transferIn: {
      weight: 2,
      run: async (platform) => {
        const customer = pick(ready(platform).filter((candidate) => candidate.banks.length > 0));
        if (!customer?.usd) return;
        const reply = await client.call('POST /transfer-in', platform.auth, 'POST', '/transfer-in', {
          body: { source: { accountId: pick(customer.banks) }, destination: { accountId: customer.usd }, amount: 700 },
        });
        if (expect('POST /transfer-in', reply, [201]) && reply.status === 201) platform.transactionIds.add(reply.body.id);
      },
    },
    hotBurst: {
      weight: 0.7,
      run: async (platform) => {
        const hot = platform.hot;
        if (!hot) return;
        await Promise.all(
          Array.from({ length: HOT_BURST }, () => transferOut(platform, hot.usd, hot.bank, 100, 'POST /transfer-out (hot account)')),
        );
      },
    },
    incoming: {
      weight: 4,
      run: async (platform) => {
        const customer = pick(ready(platform));
        if (!customer) return;
        const reply = await client.call('POST /sandbox/uma/receive', platform.auth, 'POST', '/sandbox/uma/receive', {
          body: {
            senderUmaAddress: INCOMING_SENDER,
            customerId: customer.id,
            receivingCurrencyCode: 'USD',
            receivingCurrencyAmount: 1_000 + Math.floor(random() * 1_000),
          },
        });
        if (expect('POST /sandbox/uma/receive', reply, [200, 201])) platform.transactionIds.add(reply.body.id);
      },
    },
    invitation: {
      weight: 1.5,
      run: async (platform) => {
        const customer = pick(platform.customers);
        if (!customer) return;
        const created = await client.call('POST /invitations', platform.auth, 'POST', '/invitations', {
          body: { inviterUma: customer.umaAddress, firstName: 'Bob' },
        });
        if (!expect('POST /invitations', created, [201])) return;
        const code = created.body.code as string;
        platform.invitationCodes.push(code);
        expect(
          'GET /invitations/{code}',
          await client.call('GET /invitations/{code}', platform.auth, 'GET', `/invitations/${code}`),
          [200],
        );
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
      },
    },
    token: {
      weight: 0.5,
      run: async (platform) => {
        const created = await client.call('POST /tokens', platform.auth, 'POST', '/tokens', {
          body: { name: `soak ${next()}`, permissions: ['VIEW'] },
        });
        if (!expect('POST /tokens', created, [201])) return;
        expect('GET /tokens/{id}', await client.call('GET /tokens/{id}', platform.auth, 'GET', `/tokens/${created.body.id}`), [200]);
        expect(
          'DELETE /tokens/{id}',
          await client.call('DELETE /tokens/{id}', platform.auth, 'DELETE', `/tokens/${created.body.id}`),
          [204],
        );
      },
    },
    config: {
      weight: 0.3,
      run: async (platform) => {
        expect(
          'PATCH /config',
          await client.call('PATCH /config', platform.auth, 'PATCH', '/config', { body: { webhookEndpoint: platform.receiver.url } }),
          [200],
        );
      },
    },
    issueCard: {
      weight: 2,
      run: async (platform) => {
        const customer = pick(ready(platform));
        if (!customer?.usd) return;
        const suffix = pick(CARD_SUFFIXES)!;
        const platformCardId = `soak-card-${runTag}-${next()}${suffix === 'x' ? 'c' : `-${suffix}`}`;
        const reply = await client.call('POST /cards', platform.auth, 'POST', '/cards', {
          body: { cardholderId: customer.id, platformCardId, form: 'VIRTUAL', fundingSources: [customer.usd] },
        });
        if (reply.status === 409 && reply.retried) {
          // A lost answer: the first attempt made the card, the retry found the platformCardId taken. The card is the one with that id.
          const found = await client.call(
            'GET /cards (platformCardId)',
            platform.auth,
            'GET',
            `/cards?platformCardId=${encodeURIComponent(platformCardId)}`,
          );
          const card = found.body?.data?.[0];
          if (card) platform.cards.push({ id: card.id, customerId: customer.id, account: customer.usd, platformCardId, state: card.state });
          else stats.surprise('POST /cards retried into 409 but no card has its platformCardId', platformCardId);
          return;
        }
        if (!expect('POST /cards', reply, [201])) return;
        platform.cards.push({ id: reply.body.id, customerId: customer.id, account: customer.usd, platformCardId, state: reply.body.state });
      },
    },
    patchCard: {
      weight: 2,
      run: async (platform) => {
        const card = pick(platform.cards.filter((candidate) => candidate.state !== 'CLOSED'));
        if (!card) return;
        const roll = random();
        const body =
          roll < 0.1
            ? { state: 'CLOSED' }
            : roll < 0.3
              ? { fundingSources: [card.account] }
              : { state: card.state === 'FROZEN' ? 'ACTIVE' : 'FROZEN' };
        const reply = await client.call('PATCH /cards/{id}', platform.auth, 'PATCH', `/cards/${card.id}`, { body });
        // 409: a move the card's state does not allow (still PENDING_ISSUE, or another user moved it first).
        if (expect('PATCH /cards/{id}', reply, [200, 409])) {
          if (reply.status === 200) card.state = reply.body.state;
          else if (reply.body?.code === 'CARD_ALREADY_CLOSED' || reply.body?.code === 'CARD_NOT_MUTABLE') card.state = 'CLOSED';
          else {
            const current = await client.call('GET /cards/{id}', platform.auth, 'GET', `/cards/${card.id}`);
            if (current.status === 200) card.state = current.body.state;
          }
        }
      },
    },
    readCards: {
      weight: 3,
      run: async (platform) => {
        const card = pick(platform.cards);
        const reads: [string, string][] = [
          ['GET /cards', `/cards?limit=20&sortOrder=${random() < 0.5 ? 'asc' : 'desc'}`],
          ['GET /cards (state)', `/cards?state=${pick(['ACTIVE', 'FROZEN', 'CLOSED', 'PENDING_ISSUE'])}&limit=20`],
        ];
        if (card) {
          reads.push(
            ['GET /cards/{id}', `/cards/${card.id}`],
            ['GET /cards (cardholderId)', `/cards?cardholderId=${encodeURIComponent(card.customerId)}`],
            ['GET /cards (accountId)', `/cards?accountId=${encodeURIComponent(card.account)}`],
            ['GET /cards (platformCardId)', `/cards?platformCardId=${encodeURIComponent(card.platformCardId)}`],
          );
        }
        const [operation, path] = pick(reads)!;
        const reply = await client.call(operation, platform.auth, 'GET', path);
        if (expect(operation, reply, [200]) && card && operation === 'GET /cards/{id}') card.state = reply.body.state;
      },
    },
    cardAuthorization: {
      weight: 3,
      run: async (platform) => {
        const funded = new Set(platform.customers.filter((customer) => customer.funded).map((customer) => customer.id));
        // PENDING_ISSUE as last seen: the sandbox issuer usually activated it since (a decline refreshes what we know).
        const card = pick(
          platform.cards.filter((candidate) => ['ACTIVE', 'PENDING_ISSUE'].includes(candidate.state) && funded.has(candidate.customerId)),
        );
        if (!card) return;
        const amount = 100 + Math.floor(random() * 4_900);
        const reply = await client.call(
          'POST /sandbox/cards/{id}/simulate/authorization',
          platform.auth,
          'POST',
          `/sandbox/cards/${card.id}/simulate/authorization`,
          {
            body: { amount, currency: { code: 'USD' }, merchant: MERCHANT },
          },
        );
        if (reply.status === 400 && CARD_DECLINES.has(reply.body?.code)) {
          stats.outcome(`card authorization declined ${reply.body.code}`);
          if (reply.body.code === 'CARD_PAUSED') {
            const current = await client.call('GET /cards/{id}', platform.auth, 'GET', `/cards/${card.id}`);
            if (current.status === 200) card.state = current.body.state;
          }
          return;
        }
        if (!expect('POST /sandbox/cards/{id}/simulate/authorization', reply, [200])) return;
        platform.cardTransactions.set(reply.body.id, {
          id: reply.body.id,
          cardId: card.id,
          account: reply.body.accountId,
          authorized: amount,
          settled: 0,
          returned: 0,
          status: reply.body.status,
          busy: false,
        });
      },
    },
    cardClearing: {
      weight: 2,
      run: async (platform) => {
        const transaction = pick(
          [...platform.cardTransactions.values()].filter(
            (candidate) => !candidate.busy && (candidate.status === 'AUTHORIZED' || candidate.status === 'PARTIALLY_SETTLED'),
          ),
        );
        if (!transaction) return;
        const open = transaction.authorized - transaction.settled;
        const roll = random();
        // Full, partial, or 0 (the authorization expires and its hold is released).
        const amount = roll < 0.5 ? open : roll < 0.85 ? Math.max(1, Math.floor(open / 2)) : 0;
        transaction.busy = true;
        try {
          const reply = await client.call(
            'POST /sandbox/cards/{id}/simulate/clearing',
            platform.auth,
            'POST',
            `/sandbox/cards/${transaction.cardId}/simulate/clearing`,
            { body: { cardTransactionId: transaction.id, amount } },
          );
          // Closing a card expires its open authorizations (a clearing of 0): a clearing after that,
          // or racing it, is a 409 naming the status the close left.
          const closed = platform.cards.find((card) => card.id === transaction.cardId)?.state === 'CLOSED';
          if (reply.status === 409 && reply.body?.code === 'INVALID_STATE_TRANSITION' && closed) {
            transaction.status = reply.body.details?.status ?? 'SETTLED';
            return stats.outcome('card clearing after the card was closed: 409');
          }
          if (
            expect('POST /sandbox/cards/{id}/simulate/clearing', reply, reply.retried ? [200, 400, 409] : [200]) &&
            reply.status === 200
          ) {
            transaction.status = reply.body.status;
            transaction.settled = Number(reply.body.settlementSummary?.totalAmount ?? transaction.settled);
          }
        } finally {
          transaction.busy = false;
        }
      },
    },
    cardReturn: {
      weight: 1,
      run: async (platform) => {
        // Returns on SETTLED and PARTIALLY_SETTLED transactions: a full return on a partly settled
        // one keeps it PARTIALLY_SETTLED with the rest of its hold still clearable (this soak's hold
        // check once found it REFUNDED with money held and nothing left to release it).
        const transaction = pick(
          [...platform.cardTransactions.values()].filter(
            (candidate) =>
              !candidate.busy &&
              candidate.settled - candidate.returned > 0 &&
              (candidate.status === 'SETTLED' || candidate.status === 'PARTIALLY_SETTLED'),
          ),
        );
        if (!transaction) return;
        const net = transaction.settled - transaction.returned;
        const amount = random() < 0.5 ? net : Math.max(1, Math.floor(net / 3));
        transaction.busy = true;
        try {
          const reply = await client.call(
            'POST /sandbox/cards/{id}/simulate/return',
            platform.auth,
            'POST',
            `/sandbox/cards/${transaction.cardId}/simulate/return`,
            { body: { cardTransactionId: transaction.id, amount } },
          );
          if (expect('POST /sandbox/cards/{id}/simulate/return', reply, reply.retried ? [200, 400, 409] : [200]) && reply.status === 200) {
            transaction.status = reply.body.status;
            transaction.returned = Number(reply.body.refundSummary?.totalAmount ?? transaction.returned);
          }
        } finally {
          transaction.busy = false;
        }
      },
    },
    read: {
      weight: 25,
      run: async (platform) => {
        const customer = pick(platform.customers);
        const transactionId = pick([...platform.transactionIds]);
        const reads: [string, string][] = [
          ['GET /customers', '/customers?limit=20'],
          ['GET /customers/internal-accounts', '/customers/internal-accounts?limit=20'],
          ['GET /platform/internal-accounts', '/platform/internal-accounts'],
          ['GET /customers/external-accounts', '/customers/external-accounts?limit=20'],
          ['GET /transactions', '/transactions?limit=20'],
          ['GET /documents', '/documents?limit=20'],
          ['GET /config', '/config'],
          ['GET /tokens', '/tokens'],
          ['GET /exchange-rates', '/exchange-rates'],
          ['GET /webhooks/deliveries', '/webhooks/deliveries?limit=20'],
        ];
        if (customer)
          reads.push(
            ['GET /customers/{id}', `/customers/${customer.id}`],
            ['GET /verifications', `/verifications?customerId=${encodeURIComponent(customer.id)}`],
          );
        if (transactionId) reads.push(['GET /transactions/{id}', `/transactions/${transactionId}`]);
        const external = pick(platform.externalAccountIds);
        if (external) reads.push(['GET /customers/external-accounts/{id}', `/customers/external-accounts/${external}`]);
        const business = pick(platform.businesses);
        if (business) reads.push(['GET /beneficial-owners', `/beneficial-owners?customerId=${encodeURIComponent(business)}`]);
        const job = pick(platform.bulkJobs);
        if (job) reads.push(['GET /customers/bulk/jobs/{id}', `/customers/bulk/jobs/${job}`]);
        const [operation, path] = pick(reads)!;
        expect(operation, await client.call(operation, platform.auth, 'GET', path), [200]);
      },
    },
    ...createWalletOperations(client, stats, random, runTag),
  };

  Object.assign(operations, createAgentOperations(client, stats, random, next, expect));

  const totalWeight = Object.values(operations).reduce((sum, operation) => sum + operation.weight, 0);
  /** One operation picked by weight on a random platform. */
  const runOne = async (): Promise<void> => {
    const platform = pick(platforms)!;
    let roll = random() * totalWeight;
    for (const [name, operation] of Object.entries(operations)) {
      roll -= operation.weight;
      if (roll <= 0) {
        try {
          await operation.run(platform);
        } catch (error) {
          stats.surprise(`${name} threw`, (error as Error).stack ?? String(error));
        }
        return;
      }
    }
  };

  /** Each platform starts with a few customers and a funded hot account with a bank account to pay out to. */
  const seed = async (platform: SoakPlatform): Promise<void> => {
    const hotOwner = await createCustomer(platform);
    if (hotOwner?.usd) {
      const bank = await bankAccount(platform, hotOwner, '001');
      if (bank && (await fund(platform, hotOwner.usd, 50_000_000))) platform.hot = { customerId: hotOwner.id, usd: hotOwner.usd, bank };
      hotOwner.funded = true;
    }
    for (let n = 0; n < 3; n += 1) {
      const customer = await createCustomer(platform);
      if (customer?.usd && (await fund(platform, customer.usd, 500_000))) customer.funded = true;
      if (customer) await bankAccount(platform, customer, '001');
      if (customer?.usd) await operations.issueCard!.run(platform);
    }
  };

  /** A deferred approval (the receiver answered 202 to INCOMING_PAYMENT.PENDING). 409 when the window had run out. */
  const approve = (platform: SoakPlatform, transactionId: string): Promise<void> =>
    client
      .call('POST /transactions/{id}/approve', platform.auth, 'POST', `/transactions/${transactionId}/approve`)
      .then((reply) => void expect('POST /transactions/{id}/approve', reply, [200, 409]));

  return { runOne, seed, approve };
};
